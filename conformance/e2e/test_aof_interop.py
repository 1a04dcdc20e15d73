# The AOF, interoperable with redis-server 7.0: the multi-part AOF directory keel-server writes
# (a base, incremental files, the manifest; after a BGREWRITEAOF, in both base formats) passes
# redis-check-aof and loads into redis-server to the same DEBUG DIGEST; the directory
# redis-server writes loads into keel-server to the same digest; and with appendfsync always, a
# kill -9 in the middle of a stream of writes loses none that was acknowledged.
#
# Cases that need redis-server or redis-check-aof skip (77) without them.
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

import keel_harness as h
import test_rdb_interop as rdb

AOF_TIMEOUT_S = 60.0


def aof_args(directory, extra=()):
    return lambda port: ["--port", str(port), "--dir", directory, "--save", "",
                         "--appendonly", "yes", "--enable-debug-command", "yes"] + list(extra)


def wait_rewrite(server):
    def finished():
        info = server.info("persistence")
        if info.get("aof_rewrite_in_progress") == "0" and info.get("aof_rewrite_scheduled") == "0":
            return info
        return None

    info = rdb.wait_until(finished, "aof_rewrite_in_progress:0", AOF_TIMEOUT_S)
    h.check_equal(info.get("aof_last_bgrewrite_status"), "ok", "aof_last_bgrewrite_status")


def more_writes(conn, tag):
    """Writes after the base: they live in the incremental file."""
    for command in (("SET", f"after:{tag}", "x" * 100), ("INCRBY", "counter", 5),
                    ("RPUSH", "list:big", "tail"), ("HSET", "hash:small", "late", "1"),
                    ("DEL", "str:short"), ("EXPIRE", "str:int", 100000),
                    ("SELECT", 1), ("SET", f"db1:{tag}", "v"), ("SELECT", 0)):
        reply = conn.command(*command)
        h.check(not isinstance(reply, h.RespError), f"{command}: {reply!r}")


def check_aof_dir(directory):
    check_aof = rdb.needs("redis-check-aof")
    manifest = os.path.join(directory, "appendonlydir", "appendonly.aof.manifest")
    h.check(os.path.isfile(manifest), f"no manifest {manifest}")
    result = h.run_tool([check_aof, manifest])
    output = (result.stdout + result.stderr).decode(errors="replace")
    h.check(result.returncode == 0 and "is valid" in output,
            f"redis-check-aof on {manifest} exited with {result.returncode}:\n{output}")


def write_then_load(writer_binary, writer_name, reader_binary, reader_name, preamble):
    with tempfile.TemporaryDirectory(prefix="keel-e2e-aof-") as directory:
        writer = h.KeelServer(aof_args(directory, ["--aof-use-rdb-preamble", preamble]),
                              name=writer_name, binary=writer_binary)
        with writer:
            writer.start()
            with writer.connect() as conn:
                rdb.fill_every_type(conn)
                more_writes(conn, "before-rewrite")
            h.check(writer.command("BGREWRITEAOF").startswith("Background append only file "
                                                              "rewriting"), "BGREWRITEAOF")
            wait_rewrite(writer)
            with writer.connect() as conn:
                more_writes(conn, "after-rewrite")
            expected = rdb.digest(writer)
            counts = rdb.keyspace(writer)
            rdb.shutdown(writer, "NOSAVE")
        check_aof_dir(directory)
        reader = h.KeelServer(aof_args(directory), name=reader_name, binary=reader_binary)
        with reader:
            reader.start()
            h.check_equal(rdb.digest(reader), expected,
                          f"DEBUG DIGEST of {reader_name} on {writer_name}'s AOF")
            h.check_equal(rdb.keyspace(reader), counts, "INFO keyspace")


def test_keel_aof_loads_in_redis():
    redis_server = rdb.needs("redis-server")
    for preamble in ("yes", "no"):
        write_then_load(None, "keel-server", redis_server, "redis-server", preamble)


def test_redis_aof_loads_in_keel():
    redis_server = rdb.needs("redis-server")
    for preamble in ("yes", "no"):
        write_then_load(redis_server, "redis-server", None, "keel-server", preamble)


def test_kill9_keeps_acknowledged_writes():
    """appendfsync always: every INCR that was answered is in the AOF when the process dies."""
    with tempfile.TemporaryDirectory(prefix="keel-e2e-aof-") as directory:
        server = h.KeelServer(aof_args(directory, ["--appendfsync", "always"]))
        acknowledged = {"value": 0}
        stop = threading.Event()

        def writer():
            try:
                with server.connect() as conn:
                    while not stop.is_set():
                        reply = conn.command("INCR", "counter")
                        if not isinstance(reply, int):
                            return
                        acknowledged["value"] = reply
            except (OSError, ConnectionError, h.TestFailure):
                return  # the server died under it

        with server:
            server.start()
            threads = [threading.Thread(target=writer) for _ in range(1)]
            for thread in threads:
                thread.start()
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline and acknowledged["value"] < 2000:
                time.sleep(0.05)
            server.stop(sig=signal.SIGKILL, expect_exit_code=None)
            stop.set()
            for thread in threads:
                thread.join(timeout=10)
            last = acknowledged["value"]
            h.check(last > 0, "no INCR was acknowledged")
            server.start()
            value = int(server.command("GET", "counter"))
            h.check(value >= last, f"counter {value} after kill -9, but {last} was acknowledged")
            h.check(value <= last + 1, f"counter {value}: more than the one INCR in flight "
                    f"beyond the acknowledged {last}")
        check_aof_dir(directory)


if __name__ == "__main__":
    sys.exit(h.main({"keel_aof_loads_in_redis": test_keel_aof_loads_in_redis,
                     "redis_aof_loads_in_keel": test_redis_aof_loads_in_keel,
                     "kill9_keeps_acknowledged_writes": test_kill9_keeps_acknowledged_writes}))
