# RDB persistence, interoperable with redis-server 7.0: keel-server loads the RDB files Redis wrote
# (corpus/rdb/, made by corpus/rdb/make_samples.py) to the same dataset (DEBUG DIGEST, key counts
# per db); redis-check-rdb accepts the file Keel's SAVE writes and redis-server loads it to the same
# digest; SHUTDOWN SAVE and BGSAVE write a file a restart loads (values, expiry, digest); a corrupt
# or truncated file makes keel-server refuse to start (a non-zero exit code, not a signal, and a log
# line naming the problem) instead of serving.
#
# Every case also passes against redis-server itself (--server /usr/bin/redis-server), which is how
# its expectations were checked. Cases that need redis-server or redis-check-rdb skip (77) without.
import hashlib
import os
import re
import shutil
import sys
import tempfile
import time

import keel_harness as h

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "corpus", "rdb")
FAR_FUTURE_MS = 4102444800000  # 2100-01-01, as in the corpus
SAVE_TIMEOUT_S = 60.0
# A log line about a bad RDB file: what it is about, and what is wrong with it. redis-server 7.0
# logs "Wrong RDB checksum expected: (...) but got (...). Aborting now." for a flipped byte and
# "Short read or OOM loading DB. Unrecoverable error, aborting now." for a truncated file.
BAD_FILE_SUBJECT = re.compile(r"rdb|dump|checksum|crc|db file|loading", re.IGNORECASE)
BAD_FILE_PROBLEM = re.compile(r"\b(wrong|bad|corrupt|invalid|short read|unexpected (eof|end)|"
                              r"truncat|error|fail|abort|mismatch)", re.IGNORECASE)


def needs(name):
    path = shutil.which(name)
    if path is None:
        h.skip(f"{name} is not installed (bash .ci/deps installs it)")
    return path


def persistence_args(directory, dbfilename):
    """The options of every server of these cases, after --port P."""
    return lambda port: ["--port", str(port), "--dir", directory, "--dbfilename", dbfilename,
                         "--save", "", "--enable-debug-command", "yes"]


def new_server(dbfilename, name, binary=None, directory=None):
    """A server (not started) whose --dir is `directory`, by default its own working directory."""
    server = h.KeelServer(name=name, binary=binary)
    server.make_args = persistence_args(directory or server.workdir, dbfilename)
    return server


def digest(server):
    reply = server.command("DEBUG", "DIGEST")
    h.check(isinstance(reply, str) and re.fullmatch(r"[0-9a-f]{40}", reply) is not None,
            f"{server.name}: DEBUG DIGEST replied {reply!r}")
    return reply


def keyspace(server):
    """INFO keyspace as {db: (keys, expires)}."""
    counts = {}
    for name, value in h.parse_info(server.command("INFO", "keyspace")).items():
        match = re.fullmatch(r"db(\d+)", name)
        if match:
            fields = dict(item.split("=", 1) for item in value.split(","))
            counts[int(match.group(1))] = (int(fields["keys"]), int(fields["expires"]))
    return counts


def wait_until(condition, what, timeout_s=SAVE_TIMEOUT_S):
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        h.check(time.monotonic() < deadline, f"timed out after {timeout_s}s waiting for {what}")
        time.sleep(0.05)


def shutdown(server, mode):
    """SHUTDOWN SAVE|NOSAVE: no reply, the connection closes, the server exits with 0."""
    with server.connect() as conn:
        conn.send_raw(h.encode_command("SHUTDOWN", mode))
        h.check_equal(conn.read_until_closed(), b"", f"{server.name}: reply to SHUTDOWN {mode}")
    server.stop(sig=None, expect_exit_code=0)


# ----------------------------------------------------------------------------------------------
# Data of every type and encoding


def incompressible(seed, size):
    out, block = b"", seed.encode()
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block
    return out[:size]


def fill_every_type(conn):
    """Strings (int, embstr, raw, LZF-compressible, incompressible, binary, empty), lists (small,
    big, with a big element), sets (intset, hashtable), hashes (listpack, hashtable), zsets
    (listpack, skiplist), bitmaps, HyperLogLogs (sparse, dense); keys with expiry; dbs 0, 1, 7."""
    def ok(reply, what):
        h.check(not isinstance(reply, h.RespError), f"{what}: {reply!r}")

    def run(*args):
        ok(conn.command(*args), " ".join(str(a)[:40] for a in args[:3]))

    def batches(command, key, items, size=500):
        for i in range(0, len(items), size):
            run(command, key, *items[i:i + size])

    run("SELECT", 0)
    run("SET", "str:short", "hello")
    run("SET", "str:int", "12345")
    run("SET", "str:negative", "-7")
    run("SET", "str:max_int64", "9223372036854775807")
    run("SET", "str:int32_boundary", "2147483648")
    run("SET", "str:lzf", "a" * 500)
    run("SET", "str:lzf_text", "Keel persists to RDB. " * 50)
    run("SET", "str:incompressible", incompressible("keel", 2000))
    run("SET", "str:binary", b"\x00\r\n\xff bytes \x00")
    run("SET", b"key:\x00\r\n", "binary key")
    run("SET", "str:empty", "")
    run("RPUSH", "list:small", "a", "b", 1, -2, 2 ** 40)
    batches("RPUSH", "list:big", ["item:%d" % i for i in range(5000)])
    run("RPUSH", "list:big_element", "head", "e" * 10000, "tail")
    run("SADD", "set:intset", 1, 2, 3, -5, 2 ** 40)
    batches("SADD", "set:intset_512", list(range(512)))
    run("SADD", "set:hashtable", "a", "b", "c")
    batches("SADD", "set:strings_1000", ["m:%d" % i for i in range(1000)])
    run("HSET", "hash:listpack", "f1", "v1", "n", 42, "empty", "")
    run("HSET", "hash:hashtable", *[x for i in range(600) for x in ("f%d" % i, "v%d" % i)])
    run("HSET", "hash:long_value", "f", "v" * 100)
    run("ZADD", "zset:listpack", 0, "zero", 1.5, "one.five", 0.1, "tenth", -3, "neg", "inf",
        "plus_inf", "-inf", "minus_inf")
    run("ZADD", "zset:skiplist", *[x for i in range(200) for x in (i * 0.25 - 10, "m%d" % i)])
    run("ZADD", "zset:skiplist", "inf", "top", "-inf", "bottom")
    run("SETBIT", "bitmap", 1000, 1)
    run("PFADD", "hll:sparse", "a", "b", "c")
    batches("PFADD", "hll:dense", ["e:%d" % i for i in range(20000)])
    for key, value in (("ttl:str", "volatile"), ("ttl:int", "77")):
        run("SET", key, value)
        run("PEXPIREAT", key, FAR_FUTURE_MS)
    run("RPUSH", "ttl:list", "x", "y")
    run("PEXPIREAT", "ttl:list", FAR_FUTURE_MS + 1)
    run("HSET", "ttl:hash", "f", "v")
    run("PEXPIREAT", "ttl:hash", FAR_FUTURE_MS + 2)
    run("ZADD", "ttl:zset", 1, "a")
    run("PEXPIREAT", "ttl:zset", FAR_FUTURE_MS + 3)
    run("SET", "ttl:hour", "expires in an hour")
    run("EXPIRE", "ttl:hour", 3600)
    run("SELECT", 1)
    run("SET", "db1:str", "in db 1")
    run("SADD", "db1:set", 1, 2)
    run("SET", "db1:ttl", "volatile in db 1")
    run("PEXPIREAT", "db1:ttl", FAR_FUTURE_MS)
    run("SELECT", 7)
    run("ZADD", "db7:zset", 1, "x")
    run("HSET", "db7:hash", "a", "b")
    run("SELECT", 0)


def snapshot(server):
    """Every key's type, value and whether it has a TTL, by (db, key)."""
    data = {}
    with server.connect() as conn:
        for db in range(16):
            conn.command("SELECT", db)
            keys, cursor = set(), b"0"
            while True:
                cursor, batch = conn.command("SCAN", cursor, "COUNT", 1000)
                keys.update(batch)
                if cursor == b"0":
                    break
            for key in keys:
                kind = conn.command("TYPE", key)
                if kind == "string":
                    value = conn.command("GET", key)
                elif kind == "list":
                    value = conn.command("LRANGE", key, 0, -1)
                elif kind == "set":
                    value = sorted(conn.command("SMEMBERS", key))
                elif kind == "hash":
                    flat = conn.command("HGETALL", key)
                    value = sorted(zip(flat[::2], flat[1::2]))
                elif kind == "zset":
                    value = conn.command("ZRANGE", key, 0, -1, "WITHSCORES")
                else:
                    value = None
                data[(db, key)] = (kind, value, conn.command("PTTL", key) > 0)
    return data


def check_same_data(before, after, what):
    if before == after:
        return
    missing = sorted(set(before) - set(after))[:10]
    extra = sorted(set(after) - set(before))[:10]
    changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])[:10]
    details = [f"missing keys {missing}" if missing else "", f"new keys {extra}" if extra else ""]
    for key in changed:
        details.append(f"{key}: before {str(before[key])[:200]} after {str(after[key])[:200]}")
    raise h.TestFailure(f"{what}: the data differ: " + "; ".join(d for d in details if d))


def check_expiry_kept(server):
    """The relative and the absolute expiry survived a save and load."""
    with server.connect() as conn:
        pttl = conn.command("PTTL", "ttl:hour")
        h.check(isinstance(pttl, int) and 0 < pttl <= 3600 * 1000,
                f"PTTL ttl:hour after the restart: {pttl!r} (expected 0 < PTTL <= 3600000)")
        pttl = conn.command("PTTL", "ttl:str")
        expected = FAR_FUTURE_MS - int(time.time() * 1000)
        h.check(isinstance(pttl, int) and abs(pttl - expected) < 120 * 1000,
                f"PTTL ttl:str after the restart: {pttl!r}, expected about {expected} "
                f"(PEXPIREAT {FAR_FUTURE_MS})")
        h.check_equal(conn.command("GET", "ttl:str"), b"volatile", "GET ttl:str after the restart")


# ----------------------------------------------------------------------------------------------
# Cases


def expected_from_listing(path):
    """{db: (keys, expires)} from a sample's NAME.txt (make_samples.py's listing)."""
    counts = {}
    with open(path) as listing:
        for line in listing:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            db, has_ttl = int(fields[0]), fields[4] == "ttl"
            keys, expires = counts.get(db, (0, 0))
            counts[db] = (keys + 1, expires + has_ttl)
    return counts


def test_load_redis_samples():
    names = sorted(name for name in os.listdir(CORPUS) if name.endswith(".rdb"))
    h.check(len(names) >= 10, f"expected the RDB samples in {CORPUS}, found {names}")
    failures = []
    for name in names:
        stem = os.path.join(CORPUS, name[:-len(".rdb")])
        with open(stem + ".digest") as file:
            expected_digest = file.read().strip()
        expected_counts = expected_from_listing(stem + ".txt")
        server = new_server(name, f"keel-server on {name}")
        try:
            shutil.copyfile(os.path.join(CORPUS, name), os.path.join(server.workdir, name))
            try:
                server.start()
            except h.TestFailure as error:
                failures.append(f"{name}: the server did not start on it: {error}")
                continue
            actual_digest = digest(server)
            actual_counts = keyspace(server)
            if actual_digest != expected_digest:
                failures.append(f"{name}: DEBUG DIGEST {actual_digest}, redis-server's "
                                f"{expected_digest}")
            if actual_counts != expected_counts:
                failures.append(f"{name}: INFO keyspace {{db: (keys, expires)}} {actual_counts}, "
                                f"expected {expected_counts} (from {os.path.basename(stem)}.txt)")
            server.stop(expect_exit_code=0)
        except h.TestFailure as error:
            failures.append(f"{name}: {error}")
        finally:
            server.cleanup()
    h.check(not failures, f"{len(failures)} of {len(names)} samples loaded wrong:\n  " +
            "\n  ".join(failures))


def test_keel_rdb_loads_in_redis():
    redis_server = needs("redis-server")
    check_rdb = needs("redis-check-rdb")
    with tempfile.TemporaryDirectory(prefix="keel-e2e-rdb-") as directory:
        saved = os.path.join(directory, "keel.rdb")
        with new_server("keel.rdb", "keel-server") as keel:
            keel.start()
            with keel.connect() as conn:
                fill_every_type(conn)
            keel_digest = digest(keel)
            keel_counts = keyspace(keel)
            keel_data = snapshot(keel)
            h.check_equal(keel.command("SAVE"), "OK", "SAVE")
            path = os.path.join(keel.workdir, "keel.rdb")
            h.check(os.path.isfile(path), f"SAVE replied OK but wrote no {path}")
            shutil.copyfile(path, saved)
        result = h.run_tool([check_rdb, saved])
        output = (result.stdout + result.stderr).decode(errors="replace")
        h.check(result.returncode == 0 and "RDB looks OK" in output,
                f"redis-check-rdb on keel-server's RDB exited with {result.returncode}:\n{output}")
        redis = new_server("keel.rdb", "redis-server on keel's RDB", binary=redis_server,
                           directory=directory)
        with redis:
            redis.start()
            h.check_equal(digest(redis), keel_digest,
                          "DEBUG DIGEST of redis-server on keel-server's RDB vs keel-server's")
            h.check_equal(keyspace(redis), keel_counts,
                          "INFO keyspace, redis-server vs keel-server")
            check_same_data(keel_data, snapshot(redis), "redis-server on keel-server's RDB")


def test_restart_keeps_data():
    with new_server("dump.rdb", "keel-server") as server:
        server.start()
        with server.connect() as conn:
            fill_every_type(conn)
        before_digest, before = digest(server), snapshot(server)
        shutdown(server, "SAVE")
        path = os.path.join(server.workdir, "dump.rdb")
        h.check(os.path.isfile(path), f"SHUTDOWN SAVE wrote no {path}")
        server.start()  # again, on the same --dir
        check_same_data(before, snapshot(server), "after SHUTDOWN SAVE and a restart")
        check_expiry_kept(server)
        h.check_equal(digest(server), before_digest, "DEBUG DIGEST after the restart")


def test_bgsave_and_lastsave():
    with new_server("dump.rdb", "keel-server") as server:
        server.start()
        with server.connect() as conn:
            fill_every_type(conn)
            before = conn.command("LASTSAVE")
            h.check(isinstance(before, int), f"LASTSAVE replied {before!r}")
            time.sleep(1.1)  # LASTSAVE has a resolution of a second
            saved_digest, saved = digest(server), snapshot(server)
            h.check_equal(conn.command("BGSAVE"), "Background saving started", "BGSAVE")

        def finished():
            info = server.info("persistence")
            return info if info.get("rdb_bgsave_in_progress") == "0" else None

        info = wait_until(finished, "rdb_bgsave_in_progress:0 in INFO persistence")
        h.check_equal(info.get("rdb_last_bgsave_status"), "ok", "rdb_last_bgsave_status")
        after = server.command("LASTSAVE")
        h.check(isinstance(after, int) and after > before,
                f"LASTSAVE after BGSAVE {after!r}, before {before} (1.1 s earlier)")
        path = os.path.join(server.workdir, "dump.rdb")
        h.check(os.path.isfile(path), f"BGSAVE finished but wrote no {path}")
        # A write after the snapshot, then no save at exit: the restart shows the BGSAVE's file.
        h.check_equal(server.command("SET", "after:bgsave", "not in the file"), "OK", "SET")
        shutdown(server, "NOSAVE")
        server.start()
        h.check_equal(server.command("EXISTS", "after:bgsave"), 0,
                      "EXISTS of a key written after the BGSAVE, after the restart")
        check_same_data(saved, snapshot(server), "after BGSAVE and a restart")
        check_expiry_kept(server)
        h.check_equal(digest(server), saved_digest, "DEBUG DIGEST after the restart")


def bad_file_lines(log):
    return [line for line in log.splitlines()
            if BAD_FILE_SUBJECT.search(line) and BAD_FILE_PROBLEM.search(line)]


def check_refuses(data, what):
    server = new_server("dump.rdb", f"keel-server on {what}")  # a name no pattern matches
    try:
        with open(os.path.join(server.workdir, "dump.rdb"), "wb") as file:
            file.write(data)
        for attempt in range(h.PORT_ATTEMPTS):
            try:
                server.start_on(h.free_port())
            except h.ServerStartError as error:
                if error.port_in_use and attempt < h.PORT_ATTEMPTS - 1:
                    continue
                h.check("was not ready within" not in str(error),
                        f"keel-server on {what} neither served nor exited: {error}")
                break
            raise h.TestFailure(f"keel-server started serving on {what} (port {server.port} "
                                f"answered PING); log:\n{server.log_tail()}")
        log = server.log()
        code = server.exit_code
        h.check(code is not None and code > 0,
                f"keel-server on {what} exited with {code}, expected a code > 0 (a negative code "
                f"is a signal: a crash); log:\n{log}")
        h.check(server.sanitizer_report() is None, f"sanitizer report on {what}:\n{log}")
        h.check(bad_file_lines(log), f"keel-server on {what} logged no line saying the RDB file "
                f"is bad (expected one matching /{BAD_FILE_SUBJECT.pattern}/ and "
                f"/{BAD_FILE_PROBLEM.pattern}/); log:\n{log}")
        h.check(h.port_refuses(server.port), f"port {server.port} open after the exit")
    finally:
        server.cleanup()


def test_corrupt_file_refused():
    with open(os.path.join(CORPUS, "strings.rdb"), "rb") as file:
        good = file.read()
    flipped = bytearray(good)
    flipped[len(good) // 2] ^= 0xFF
    check_refuses(bytes(flipped), f"strings.rdb with byte {len(good) // 2} of {len(good)} flipped")
    check_refuses(good[:len(good) // 2], f"strings.rdb truncated to {len(good) // 2} of "
                  f"{len(good)} bytes")


if __name__ == "__main__":
    sys.exit(h.main({"load_redis_samples": test_load_redis_samples,
                     "keel_rdb_loads_in_redis": test_keel_rdb_loads_in_redis,
                     "restart_keeps_data": test_restart_keeps_data,
                     "bgsave_and_lastsave": test_bgsave_and_lastsave,
                     "corrupt_file_refused": test_corrupt_file_refused}))
