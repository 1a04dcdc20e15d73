# Keel's zstd snapshot (rdb-compression-algorithm zstd, issue 16 item 7) with the real server:
# SAVE writes one zstd frame under dbfilename, a restart loads it to the same data and DEBUG
# DIGEST even with the setting back at lzf (the file's first bytes decide); `zstd -d` of the file
# is a plain RDB that redis-check-rdb accepts and redis-server 7.0 loads to the same digest; a
# truncated or damaged zstd file makes keel-server refuse to start. Cases that need the zstd CLI,
# redis-check-rdb or redis-server skip (77) without them.
import os
import sys
import tempfile

import keel_harness as h
import test_rdb_interop as rdb

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def zstd_server(dbfilename, name, level="1"):
    server = rdb.new_server(dbfilename, name)
    plain_args = server.make_args
    server.make_args = lambda port: plain_args(port) + [
        "--rdb-compression-algorithm", "zstd", "--rdb-zstd-level", level]
    return server


def saved_zstd_file(server, dbfilename):
    """SAVE; the file's bytes, checked to be a zstd frame."""
    h.check_equal(server.command("SAVE"), "OK", "SAVE")
    path = os.path.join(server.workdir, dbfilename)
    h.check(os.path.isfile(path), f"SAVE replied OK but wrote no {path}")
    with open(path, "rb") as file:
        data = file.read()
    h.check(data.startswith(ZSTD_MAGIC),
            f"{dbfilename} starts with {data[:9]!r}, not a zstd frame's magic {ZSTD_MAGIC!r}")
    return data


def test_zstd_restart_keeps_data():
    with zstd_server("dump.rdb", "keel-server (zstd)") as server:
        server.start()
        h.check_equal(server.command("CONFIG", "GET", "rdb-compression-algorithm"),
                      [b"rdb-compression-algorithm", b"zstd"], "CONFIG GET")
        with server.connect() as conn:
            rdb.fill_every_type(conn)
        before_digest, before = rdb.digest(server), rdb.snapshot(server)
        saved_zstd_file(server, "dump.rdb")
        rdb.shutdown(server, "NOSAVE")
        # Back at Redis's default: the zstd file still loads.
        server.make_args = rdb.persistence_args(server.workdir, "dump.rdb")
        server.start()
        h.check_equal(server.command("CONFIG", "GET", "rdb-compression-algorithm"),
                      [b"rdb-compression-algorithm", b"lzf"], "CONFIG GET after the restart")
        rdb.check_same_data(before, rdb.snapshot(server), "after a zstd SAVE and a restart")
        rdb.check_expiry_kept(server)
        h.check_equal(rdb.digest(server), before_digest, "DEBUG DIGEST after the restart")


def test_zstd_file_decompresses_to_redis_rdb():
    zstd = rdb.needs("zstd")
    check_rdb = rdb.needs("redis-check-rdb")
    redis_server = rdb.needs("redis-server")
    with tempfile.TemporaryDirectory(prefix="keel-e2e-zstd-") as directory:
        compressed = os.path.join(directory, "keel.rdb.zst")
        plain = os.path.join(directory, "keel.rdb")
        with zstd_server("keel.rdb", "keel-server (zstd)", level="3") as keel:
            keel.start()
            with keel.connect() as conn:
                rdb.fill_every_type(conn)
            keel_digest, keel_data = rdb.digest(keel), rdb.snapshot(keel)
            with open(compressed, "wb") as file:
                file.write(saved_zstd_file(keel, "keel.rdb"))
        result = h.run_tool([zstd, "-q", "-d", compressed, "-o", plain])
        h.check(result.returncode == 0,
                f"zstd -d of keel-server's zstd RDB exited with {result.returncode}: "
                f"{(result.stdout + result.stderr).decode(errors='replace')}")
        with open(plain, "rb") as file:
            h.check_equal(file.read(9), b"REDIS0010", "the decompressed file's header")
        result = h.run_tool([check_rdb, plain])
        output = (result.stdout + result.stderr).decode(errors="replace")
        h.check(result.returncode == 0 and "RDB looks OK" in output,
                f"redis-check-rdb on the decompressed file exited with {result.returncode}:\n"
                f"{output}")
        redis = rdb.new_server("keel.rdb", "redis-server on keel's decompressed zstd RDB",
                               binary=redis_server, directory=directory)
        with redis:
            redis.start()
            h.check_equal(rdb.digest(redis), keel_digest,
                          "DEBUG DIGEST of redis-server on the decompressed file vs keel-server's")
            rdb.check_same_data(keel_data, rdb.snapshot(redis), "redis-server on the file")


def test_zstd_corrupt_file_refused():
    with zstd_server("dump.rdb", "keel-server (zstd)") as server:
        server.start()
        with server.connect() as conn:
            rdb.fill_every_type(conn)
        good = saved_zstd_file(server, "dump.rdb")
    flipped = bytearray(good)
    flipped[len(good) // 2] ^= 0xFF
    rdb.check_refuses(bytes(flipped), f"a zstd RDB with byte {len(good) // 2} of {len(good)} "
                      "flipped")
    rdb.check_refuses(good[:len(good) - 5], f"a zstd RDB truncated to {len(good) - 5} of "
                      f"{len(good)} bytes")
    rdb.check_refuses(good + b"trailing", "a zstd RDB followed by other bytes")


if __name__ == "__main__":
    sys.exit(h.main({"zstd_restart_keeps_data": test_zstd_restart_keeps_data,
                     "zstd_file_decompresses_to_redis_rdb": test_zstd_file_decompresses_to_redis_rdb,
                     "zstd_corrupt_file_refused": test_zstd_corrupt_file_refused}))
