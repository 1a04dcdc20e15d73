# Replication with redis-server 7.0 on the other end (issue 19), Keel as the primary:
#
#   redis_replica_syncs_and_follows  a real `redis-server --replicaof 127.0.0.1 KEELPORT` loads
#                                    every data type Keel has (with TTLs, several databases) to
#                                    the same DEBUG DIGEST, then follows writes (MULTI/EXEC,
#                                    expiries, deletions, database changes); WAIT counts it; ROLE,
#                                    INFO replication and CLIENT LIST show it;
#   replica_resumes_with_continue    a cut link (CLIENT KILL TYPE master on the replica) and a
#                                    restart of the replica (SIGTERM: it saves its RDB with the
#                                    replication id and offset) both resume with a partial
#                                    resynchronisation (+CONTINUE), with the writes made meanwhile;
#   redis_cli_replica                `redis-cli --replica` against Keel shows the command stream;
#   publish_reaches_replicas         PUBLISH on either primary reaches the subscribers of its
#                                    replica (redis-server's of Keel, Keel's of redis-server), as
#                                    Redis propagates PUBLISH to replicas;
#   keel_replica_of_redis            keel-server as a replica of redis-server 7.0 (REPLICAOF):
#                                    the full sync loads every type to the same digest, the stream
#                                    follows under writes, a cut link resumes with +CONTINUE, the
#                                    replica refuses writes (READONLY), and REPLICAOF NO ONE
#                                    promotes it with everything the primary had (the live
#                                    migration recipe of the README).
#
# The cases skip (77) without redis-server.
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import keel_harness as h
import test_rdb_interop as rdb

SYNC_TIMEOUT_S = 60.0


def needs_redis():
    if shutil.which("redis-server") is None:
        h.skip("redis-server is not installed (bash .ci/deps installs it)")


def start_primary():
    return h.start_server(lambda port: ["--port", str(port), "--save", "",
                                        "--enable-debug-command", "yes"])


def start_replica(primary_port, extra=()):
    """A redis-server replica of Keel; it saves its RDB on shutdown (so that a restart can resume
    with PSYNC) in its own working directory."""
    server = h.KeelServer(
        lambda port: ["--port", str(port), "--replicaof", "127.0.0.1", str(primary_port),
                      "--save", "3600 1", "--appendonly", "no",
                      "--enable-debug-command", "yes"] + list(extra),
        name="redis-replica", binary=h.tool("redis-server"))
    return server.start()


def wait_until(condition, what, timeout_s=SYNC_TIMEOUT_S):
    return rdb.wait_until(condition, what, timeout_s)


def link_up(replica):
    return replica.info("replication").get("master_link_status") == "up"


def caught_up(primary, replica):
    """The replica has applied everything the primary has written to the stream."""
    primary_offset = int(primary.info("replication")["master_repl_offset"])
    info = replica.info("replication")
    return (info.get("master_link_status") == "up" and
            int(info.get("slave_repl_offset", -1)) == primary_offset)


def check_same(primary, replica, what):
    wait_until(lambda: caught_up(primary, replica), f"the replica to catch up ({what})")
    h.check_equal(rdb.digest(replica), rdb.digest(primary), f"DEBUG DIGEST {what}")
    before, after = rdb.snapshot(primary), rdb.snapshot(replica)
    rdb.check_same_data(before, after, what)


def write_more(conn):
    def run(*args):
        reply = conn.command(*args)
        h.check(not isinstance(reply, h.RespError), f"{args}: {reply!r}")
        return reply
    run("SELECT", 0)
    run("SET", "after:str", "v1", "EX", 3600)
    run("INCRBY", "after:counter", 41)
    run("INCR", "after:counter")
    run("LPUSH", "list:small", "pushed")
    run("SADD", "set:hashtable", "d")
    run("HINCRBY", "hash:listpack", "n", 8)
    run("ZINCRBY", "zset:listpack", 2, "tenth")
    run("DEL", "str:short")
    run("EXPIRE", "str:lzf", 1000)
    run("PERSIST", "ttl:str")
    run("MULTI")
    run("SET", "tx:a", "1")
    run("SET", "tx:b", "2")
    run("EXEC")
    run("SELECT", 3)
    run("SET", "db3:str", "in db 3")
    run("SELECT", 1)
    run("DEL", "db1:str")
    run("SELECT", 0)
    run("SET", "short:lived", "x", "PX", 1)
    time.sleep(0.05)
    run("GET", "short:lived")  # expired on access: the primary propagates its DEL


def test_redis_replica_syncs_and_follows():
    needs_redis()
    with start_primary() as primary:
        with primary.connect() as conn:
            rdb.fill_every_type(conn)
        replica = start_replica(primary.port)
        try:
            wait_until(lambda: link_up(replica), "the replica's link to be up")
            check_same(primary, replica, "after the full sync")
            with primary.connect() as conn:
                write_more(conn)
                h.check_equal(conn.command("WAIT", 1, 10000), 1, "WAIT 1 10000 after writes")
            check_same(primary, replica, "after the writes that followed")
            info = primary.info("replication")
            h.check_equal(info["role"], "master", "INFO role")
            h.check_equal(info["connected_slaves"], "1", "INFO connected_slaves")
            h.check(re.fullmatch(r"ip=127\.0\.0\.1,port=%d,state=online,offset=\d+,lag=\d+"
                                 % replica.port, info.get("slave0", "")) is not None,
                    f"INFO slave0: {info.get('slave0')!r}")
            h.check_equal(info["repl_backlog_active"], "1", "INFO repl_backlog_active")
            h.check_equal(info["master_replid"],
                          replica.info("replication")["master_replid"], "the replication ids")
            role = primary.command("ROLE")
            h.check_equal(role[0], b"master", "ROLE's first element")
            h.check_equal(len(role[2]), 1, "ROLE's replicas")
            h.check_equal(role[2][0][:2], [b"127.0.0.1", str(replica.port).encode()],
                          "ROLE's replica address")
            listed = primary.command("CLIENT", "LIST", "TYPE", "replica")
            h.check(isinstance(listed, (bytes, str)) and "flags=S" in (
                listed.decode() if isinstance(listed, bytes) else listed),
                f"CLIENT LIST TYPE replica: {listed!r}")
            replica.stop()
        finally:
            replica.cleanup()


def test_replica_resumes_with_continue():
    needs_redis()
    with start_primary() as primary:
        with primary.connect() as conn:
            rdb.fill_every_type(conn)
        replica = start_replica(primary.port)
        try:
            wait_until(lambda: link_up(replica), "the replica's link to be up")
            check_same(primary, replica, "after the full sync")
            # A cut link: the replica reconnects with PSYNC and continues.
            replica.command("CLIENT", "KILL", "TYPE", "master")
            with primary.connect() as conn:
                conn.command("SET", "during:cut", "1")
            wait_until(lambda: caught_up(primary, replica), "the replica to resume after a cut")
            stats = primary.info("stats")
            h.check_equal(stats["sync_full"], "1", "sync_full after a cut link")
            h.check_equal(stats["sync_partial_ok"], "1", "sync_partial_ok after a cut link")
            check_same(primary, replica, "after a cut link")
            # A restart: SIGTERM saves the replica's RDB with the replication id and offset.
            replica.stop()
            with primary.connect() as conn:
                write_more(conn)
            replica.start()
            wait_until(lambda: caught_up(primary, replica), "the replica to resume after a restart")
            stats = primary.info("stats")
            h.check_equal(stats["sync_full"], "1", "sync_full after a restart")
            h.check_equal(stats["sync_partial_ok"], "2", "sync_partial_ok after a restart")
            h.check_contains(replica.log(), "Successful partial resynchronization with master",
                             "the replica's log")
            check_same(primary, replica, "after a restart of the replica")
            replica.stop()
        finally:
            replica.cleanup()


def test_redis_cli_replica():
    needs_redis()
    with start_primary() as primary:
        with primary.connect() as conn:
            conn.command("SET", "before", "1")
        cli = subprocess.Popen([h.tool("redis-cli"), "-p", str(primary.port), "--replica"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: primary.info("replication")["connected_slaves"] == "1",
                       "redis-cli to become a replica")
            with primary.connect() as conn:
                conn.command("SELECT", 2)
                conn.command("SET", "streamed", "value")
            lines = []
            deadline = time.monotonic() + SYNC_TIMEOUT_S
            while time.monotonic() < deadline:
                line = cli.stdout.readline().decode(errors="replace")
                if not line:
                    break
                lines.append(line.rstrip("\n"))
                if '"SET","streamed","value"' in line:
                    break
            text = "\n".join(lines)
            h.check_contains(text, "SYNC done after", "redis-cli --replica's output")
            h.check_contains(text, '"SET","streamed","value"', "redis-cli --replica's output")
        finally:
            cli.send_signal(signal.SIGINT)
            try:
                cli.wait(timeout=10)
            except subprocess.TimeoutExpired:
                cli.kill()
                cli.wait()


def start_redis_primary():
    server = h.KeelServer(
        lambda port: ["--port", str(port), "--save", "", "--appendonly", "no",
                      "--enable-debug-command", "yes", "--repl-diskless-sync-delay", "1"],
        name="redis-primary", binary=h.tool("redis-server"))
    return server.start()


def check_publish_reaches(primary, replica, what):
    """A subscriber on `replica` receives what is published on `primary`."""
    with replica.connect() as subscriber:
        h.check_equal(subscriber.command("SUBSCRIBE", "news"), [b"subscribe", b"news", 1],
                      f"SUBSCRIBE on the replica ({what})")
        with primary.connect() as publisher:
            # No subscriber on the primary itself: the receiver count is the primary's own.
            h.check_equal(publisher.command("PUBLISH", "news", "hello"), 0,
                          f"PUBLISH's receivers on the primary ({what})")
            publisher.command("MULTI")
            publisher.command("PUBLISH", "news", "in a transaction")
            publisher.command("SET", "published", "1")
            publisher.command("EXEC")
        h.check_equal(subscriber.read_reply(), [b"message", b"news", b"hello"],
                      f"the message on the replica ({what})")
        h.check_equal(subscriber.read_reply(), [b"message", b"news", b"in a transaction"],
                      f"the transaction's message on the replica ({what})")


def test_publish_reaches_replicas():
    needs_redis()
    with start_primary() as primary:
        replica = start_replica(primary.port)
        try:
            wait_until(lambda: link_up(replica), "the replica's link to be up")
            check_publish_reaches(primary, replica, "Keel primary, redis-server replica")
            replica.stop()
        finally:
            replica.cleanup()
    primary = h.start_redis()
    try:
        with h.start_server(lambda port: ["--port", str(port), "--save", "", "--replicaof",
                                          "127.0.0.1", str(primary.port)]) as replica:
            wait_until(lambda: link_up(replica), "Keel's link to be up")
            check_publish_reaches(primary, replica, "redis-server primary, Keel replica")
        primary.stop()
    finally:
        primary.cleanup()


def test_keel_replica_of_redis():
    needs_redis()
    primary = start_redis_primary()
    try:
        with primary.connect() as conn:
            rdb.fill_every_type(conn)
        with start_primary() as replica:
            h.check_equal(replica.command("REPLICAOF", "127.0.0.1", primary.port), "OK",
                          "REPLICAOF host port")
            h.check_equal(replica.command("REPLICAOF", "127.0.0.1", primary.port),
                          "OK Already connected to specified master", "REPLICAOF again")
            wait_until(lambda: link_up(replica), "Keel's link to redis-server to be up")
            check_same(primary, replica, "after the full sync from redis-server")
            h.check_equal(replica.info("replication")["role"], "slave", "INFO role")
            role = replica.command("ROLE")
            h.check_equal(role[:4], [b"slave", b"127.0.0.1", primary.port, b"connected"], "ROLE")
            with primary.connect() as conn:
                write_more(conn)
                h.check_equal(conn.command("WAIT", 1, 10000), 1, "redis-server's WAIT 1")
            check_same(primary, replica, "after writes on redis-server")
            h.check_equal(replica.command("SET", "k", "v"),
                          h.RespError("READONLY You can't write against a read only replica."),
                          "a write on the replica")
            # A cut link: Keel reconnects and continues (+CONTINUE), with the writes made meanwhile.
            primary.command("CLIENT", "KILL", "TYPE", "replica")
            with primary.connect() as conn:
                conn.command("SET", "during:cut", "1")
                conn.command("HSET", "during:hash", "f", "v")
            wait_until(lambda: caught_up(primary, replica), "Keel to resume after a cut link")
            stats = primary.info("stats")
            h.check_equal(stats["sync_full"], "1", "redis-server's sync_full after a cut link")
            h.check_equal(stats["sync_partial_ok"], "1",
                          "redis-server's sync_partial_ok after a cut link")
            check_same(primary, replica, "after a cut link")
            # The migration's last step: promoted, Keel has everything and takes writes.
            before = rdb.snapshot(primary)
            h.check_equal(replica.command("REPLICAOF", "NO", "ONE"), "OK", "REPLICAOF NO ONE")
            h.check_equal(replica.info("replication")["role"], "master", "INFO role after")
            rdb.check_same_data(before, rdb.snapshot(replica), "after REPLICAOF NO ONE")
            h.check_equal(replica.command("SET", "after:promotion", "1"), "OK",
                          "a write after the promotion")
        primary.stop()
    finally:
        primary.cleanup()


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(h.main({"redis_replica_syncs_and_follows": test_redis_replica_syncs_and_follows,
                     "replica_resumes_with_continue": test_replica_resumes_with_continue,
                     "redis_cli_replica": test_redis_cli_replica,
                     "publish_reaches_replicas": test_publish_reaches_replicas,
                     "keel_replica_of_redis": test_keel_replica_of_redis}))
