# Python's redis client from Debian (python3-redis 4.3.4) against keel-server: a realistic
# session (strings with options, errors as exceptions, binary and large values, databases, client
# names, INFO and CONFIG through the client's parsers), pipelines, a connection pool shared by
# threads, transactions (pipelines with transaction=True, WATCH, r.transaction()) and a WATCH
# retry loop of threads sharing a counter; RESP3 once the client has it (redis-py 5.0+); the
# PubSub object (get_message, a handler in run_in_thread); the hash and sorted-set API with a
# leaderboard and a sliding-window rate limiter.
# Every case runs against redis-server first and then keel-server, with the same checks, and the
# two sessions' results must be equal.
#
# Run it with Debian's /usr/bin/python3 (python3-redis is installed for that interpreter):
#   /usr/bin/python3 -B test_python_client.py --server build/asan/io/keel-server --case session
import sys
import threading
import time

import keel_harness as h

try:
    import redis
except ImportError:
    redis = None


def client(server, **options):
    return redis.Redis(host="127.0.0.1", port=server.port, socket_timeout=10, **options)


def expect_error(call, fragment, what):
    """Runs call(); it must raise redis.ResponseError whose text contains `fragment`."""
    try:
        result = call()
    except redis.ResponseError as error:
        h.check_contains(str(error), fragment, what)
        return str(error)
    raise h.TestFailure(f"{what}: expected an error containing {fragment!r}, got {result!r}")


def session(server):
    r = client(server)
    h.check_equal(r.ping(), True, "PING")
    h.check_equal(r.flushall(), True, "FLUSHALL")
    # Strings with options, as an application uses them.
    h.check_equal(r.set("user:1:name", "Ada"), True, "SET")
    h.check_equal(r.get("user:1:name"), b"Ada", "GET")
    h.check_equal(r.set("session:abc", "token", ex=3600), True, "SET EX")
    h.check_equal(r.set("session:abc", "other", nx=True), None, "SET NX on an existing key")
    h.check_equal(r.set("absent", "x", xx=True), None, "SET XX on a missing key")
    h.check_equal(r.set("user:1:name", "Grace", get=True), b"Ada", "SET GET")
    h.check_equal(r.set("session:abc", "renewed", keepttl=True), True, "SET KEEPTTL")
    h.check_equal(r.set("lock", "me", px=60000, nx=True), True, "SET PX NX")
    h.check_equal(r.set("deadline", "d", exat=4102444800), True, "SET EXAT")
    h.check_equal(r.exists("user:1:name", "session:abc", "absent", "user:1:name"), 3, "EXISTS")
    h.check_equal(r.dbsize(), 4, "DBSIZE")
    h.check_equal(r.delete("lock", "absent", "deadline"), 2, "DEL")
    h.check_equal(r.get("absent"), None, "GET of a missing key")
    # Values: empty, binary, large.
    binary = bytes(range(256)) * 4
    h.check_equal(r.set("bin", binary), True, "SET binary")
    h.check_equal(r.get("bin"), binary, "GET binary")
    h.check_equal(r.set("empty", b""), True, "SET empty")
    h.check_equal(r.get("empty"), b"", "GET empty")
    large = b"0123456789abcdef" * 65536  # 1 MiB
    h.check_equal(r.set("large", large), True, "SET 1 MiB")
    h.check_equal(r.get("large"), large, "GET 1 MiB")
    text = client(server, decode_responses=True)
    h.check_equal(text.get("user:1:name"), "Grace", "GET with decode_responses")
    h.check_equal(text.echo("héllo"), "héllo", "ECHO of UTF-8 text")
    # Errors come back as ResponseError with Redis's text.
    errors = [
        expect_error(lambda: r.set("k", "v", ex=0), "invalid expire time in 'set' command",
                     "SET EX 0"),
        expect_error(lambda: r.execute_command("SET", "k", "v", "EX", "soon"),
                     "value is not an integer or out of range", "SET EX soon"),
        expect_error(lambda: r.execute_command("NOSUCHCOMMAND", "a"), "unknown command",
                     "an unknown command"),
        expect_error(lambda: r.execute_command("GET"), "wrong number of arguments", "GET alone"),
    ]
    # Databases: a client bound to db 3 sees its own keyspace.
    db3 = client(server, db=3)
    h.check_equal(db3.set("only-in-3", "yes"), True, "SET in db 3")
    h.check_equal(db3.dbsize(), 1, "DBSIZE of db 3")
    h.check_equal(r.get("only-in-3"), None, "GET in db 0 of a key of db 3")
    keyspace = r.info("keyspace")
    h.check_equal(keyspace["db3"]["keys"], 1, "INFO keyspace db3 keys")
    h.check_equal(keyspace["db0"]["keys"], 5, "INFO keyspace db0 keys")
    h.check_equal(keyspace["db0"]["expires"], 1, "INFO keyspace db0 expires")
    # The connection: names, ids, CLIENT LIST parsed by the client.
    named = client(server, client_name="worker-1")
    h.check_equal(named.client_getname(), "worker-1", "CLIENT GETNAME after client_name=")
    h.check_equal(named.client_setname("worker-2"), True, "CLIENT SETNAME")
    h.check_equal(named.client_getname(), "worker-2", "CLIENT GETNAME")
    own_id = named.client_id()
    h.check(isinstance(own_id, int) and own_id > 0, f"CLIENT ID {own_id!r}")
    listed = {entry["name"]: entry for entry in named.client_list()}
    h.check("worker-2" in listed, f"CLIENT LIST names worker-2: {sorted(listed)}")
    h.check_equal(listed["worker-2"]["id"], str(own_id), "CLIENT LIST id of worker-2")
    h.check_equal(listed["worker-2"]["cmd"], "client|list", "CLIENT LIST cmd of the caller")
    h.check_equal(named.client_info()["name"], "worker-2", "CLIENT INFO name")
    # INFO and CONFIG through the client's parsers.
    server_info = r.info("server")
    h.check_equal(server_info["redis_version"], "7.0.15", "INFO server redis_version")
    h.check_equal(server_info["tcp_port"], server.port, "INFO server tcp_port")
    h.check_equal(r.config_get("maxmemory"), {"maxmemory": "0"}, "CONFIG GET maxmemory")
    h.check_equal(r.config_set("maxmemory-policy", "allkeys-lru"), True, "CONFIG SET")
    h.check_equal(r.config_get("maxmemory-policy"), {"maxmemory-policy": "allkeys-lru"},
                  "CONFIG GET after CONFIG SET")
    expect_error(lambda: r.config_set("maxmemory-policy", "sometimes"),
                 "argument(s) must be one of the following", "CONFIG SET of a bad value")
    h.check_equal(r.config_resetstat(), True, "CONFIG RESETSTAT")
    h.check_equal(r.command_count() > 10, True, "COMMAND COUNT")
    for connection in (r, text, db3, named):
        connection.close()
    return {"errors": errors, "keyspace": keyspace}


def test_session():
    redis_result, keel_result = h.on_redis_then_keel(session)
    h.check_equal(keel_result, redis_result, "the session's results, keel vs redis")


def pipelines(server):
    r = client(server)
    r.flushall()
    pipe = r.pipeline(transaction=False)
    for i in range(500):
        pipe.set(f"item:{i}", f"value-{i}", ex=1000 + i)
    pipe.get("item:0").get("item:499").exists("item:1", "item:2", "missing").dbsize()
    results = pipe.execute()
    h.check_equal(results[:500], [True] * 500, "500 SETs in one pipeline")
    h.check_equal(results[500:], [b"value-0", b"value-499", 2, 500], "reads after the SETs")
    # An error in the middle of a pipeline: the other commands still run.
    pipe = r.pipeline(transaction=False)
    pipe.set("a", "1").execute_command("SET", "b", "2", "EX", "0").get("a").delete("a", "b")
    results = pipe.execute(raise_on_error=False)
    h.check_equal(results[0], True, "SET before the error")
    h.check(isinstance(results[1], redis.ResponseError), f"the error in the middle: {results!r}")
    h.check_equal(results[2:], [b"1", 1], "the commands after the error")
    shown = [r if not isinstance(r, Exception) else f"error: {r}" for r in results]
    # The same pipeline raising: the first error is raised after every reply was read.
    pipe = r.pipeline(transaction=False)
    pipe.set("c", "3").execute_command("GET").set("d", "4")
    expect_error(pipe.execute, "wrong number of arguments for 'get' command", "raising pipeline")
    h.check_equal(r.get("d"), b"4", "a command after the error in a raising pipeline")
    r.close()
    return shown


def test_pipelines():
    redis_result, keel_result = h.on_redis_then_keel(pipelines)
    h.check_equal(keel_result, redis_result, "the pipelines' results, keel vs redis")


THREADS = 6
OPERATIONS_PER_THREAD = 300
POOL_CONNECTIONS_MAX = 4


def pool(server):
    shared = redis.BlockingConnectionPool(host="127.0.0.1", port=server.port, socket_timeout=10,
                                          max_connections=POOL_CONNECTIONS_MAX, timeout=20)
    r = redis.Redis(connection_pool=shared)
    r.flushall()
    failures = []

    def worker(number):
        try:
            for i in range(OPERATIONS_PER_THREAD):
                key = f"t{number}:{i % 10}"
                if not r.set(key, f"{number}-{i}"):
                    failures.append(f"SET {key} failed")
                if r.get(key) != f"{number}-{i}".encode():
                    failures.append(f"GET {key} read another thread's write")
        except Exception as error:  # reported below, with the thread's number
            failures.append(f"thread {number}: {error!r}")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    h.check(not any(thread.is_alive() for thread in threads), "a pool thread did not finish")
    h.check_equal(failures, [], "failures of the threads sharing the pool")
    h.check_equal(r.dbsize(), THREADS * 10, "DBSIZE after the threads")
    created = len(shared._connections)
    h.check(1 <= created <= POOL_CONNECTIONS_MAX, f"the pool made {created} connections")
    clients = int(r.info("clients")["connected_clients"])
    h.check_equal(clients, created, "connected_clients: the pool's connections")
    shared.disconnect()
    return r.dbsize()


def test_pool():
    redis_result, keel_result = h.on_redis_then_keel(pool)
    h.check_equal(keel_result, redis_result, "keys left by the pool's threads, keel vs redis")


def transactions(server):
    r = client(server)
    r.flushall()
    pipe = r.pipeline(transaction=True)
    pipe.set("balance", 100).get("balance").set("audit", "done")
    results = pipe.execute()
    h.check_equal(results, [True, b"100", True], "MULTI/EXEC through a transaction pipeline")
    # A runtime error fails only its command; raise_on_error=False hands it back in place.
    pipe = r.pipeline(transaction=True)
    pipe.set("text", "abc").incr("text").set("after", "1")
    mixed = pipe.execute(raise_on_error=False)
    h.check(isinstance(mixed[1], redis.ResponseError), f"INCR of text inside EXEC: {mixed!r}")
    h.check_equal(r.get("after"), b"1", "the command after the runtime error ran")
    results.append([m if not isinstance(m, Exception) else f"error: {m}" for m in mixed])
    # A queuing error aborts the whole transaction: redis-py raises a ResponseError naming the
    # bad command, and nothing ran.
    pipe = r.pipeline(transaction=True)
    pipe.set("never", "1").execute_command("SET", "only-a-key")
    try:
        pipe.execute()
        raise h.TestFailure("a transaction with a wrong-arity command did not raise")
    except redis.ResponseError as error:
        results.append(f"aborted: {type(error).__name__}: {error}")
    h.check_equal(r.exists("never"), 0, "nothing of an aborted transaction ran")
    # WATCH: another client's write makes EXEC fail with WatchError.
    other = client(server)
    with r.pipeline(transaction=True) as pipe:
        pipe.watch("balance")
        h.check_equal(pipe.get("balance"), b"100", "a read in WATCH mode runs at once")
        other.set("balance", 50)
        pipe.multi()
        pipe.set("balance", 200)
        try:
            pipe.execute()
            raise h.TestFailure("EXEC after another client's write did not raise WatchError")
        except redis.WatchError:
            results.append("watch broken by another client")
    h.check_equal(r.get("balance"), b"50", "the broken transaction did not write")
    # A watched key that expires before EXEC breaks the transaction too.
    r.set("lease", "mine", px=50)
    with r.pipeline(transaction=True) as pipe:
        pipe.watch("lease")
        import time
        time.sleep(0.2)
        pipe.multi()
        pipe.set("lease", "renewed")
        try:
            pipe.execute()
            raise h.TestFailure("EXEC after the watched key expired did not raise WatchError")
        except redis.WatchError:
            results.append("watch broken by expiry")
    # transaction() is the retry loop: it re-runs the function until EXEC succeeds.
    def double(pipe):
        value = int(pipe.get("balance"))
        pipe.multi()
        pipe.set("balance", value * 2)
    h.check_equal(r.transaction(double, "balance"), [True], "r.transaction()'s EXEC")
    h.check_equal(r.get("balance"), b"100", "the doubled balance")
    # DISCARD through reset() of a pipeline in MULTI mode.
    pipe = r.pipeline(transaction=True)
    pipe.watch("balance")
    pipe.multi()
    pipe.set("balance", 0)
    pipe.reset()
    h.check_equal(r.get("balance"), b"100", "a reset pipeline wrote nothing")
    other.close()
    r.close()
    return results


def test_transactions():
    redis_result, keel_result = h.on_redis_then_keel(transactions)
    h.check_equal(keel_result, redis_result, "the transaction's results, keel vs redis")


WATCH_THREADS = 4
WATCH_INCREMENTS_PER_THREAD = 50


def watch_retry(server):
    """Optimistic locking: threads increment one counter with GET + MULTI/SET/EXEC under WATCH,
    retrying on WatchError: no increment may be lost however the threads collide."""
    r = client(server)
    r.flushall()
    r.set("counter", 0)
    failures = []
    retries = [0] * WATCH_THREADS

    def worker(number):
        mine = client(server)
        try:
            for _ in range(WATCH_INCREMENTS_PER_THREAD):
                while True:
                    with mine.pipeline(transaction=True) as pipe:
                        try:
                            pipe.watch("counter")
                            value = int(pipe.get("counter"))
                            pipe.multi()
                            pipe.set("counter", value + 1)
                            pipe.execute()
                            break
                        except redis.WatchError:
                            retries[number] += 1
        except Exception as error:  # reported below
            failures.append(f"thread {number}: {error!r}")
        finally:
            mine.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(WATCH_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    h.check(not any(thread.is_alive() for thread in threads), "a WATCH thread did not finish")
    h.check_equal(failures, [], "failures of the WATCH threads")
    total = WATCH_THREADS * WATCH_INCREMENTS_PER_THREAD
    h.check_equal(int(r.get("counter")), total, "the counter after every thread's increments")
    r.close()
    return int(r.get("counter"))


def test_watch_retry():
    redis_result, keel_result = h.on_redis_then_keel(watch_retry)
    h.check_equal(keel_result, redis_result, "the counter, keel vs redis")


QUEUE_JOBS = 200
QUEUE_WORKERS = 3


def queues(server):
    """The queue patterns of job libraries (RQ, Celery's Redis transport, Sidekiq): blocking
    pops with timeouts, and a reliable queue where workers BLMOVE each job to a processing list
    and remove it when done. Every job must be processed exactly once."""
    r = client(server)
    r.flushall()
    # BLPOP and BRPOP through redis-py: a timeout gives None, a waiting pop is served by a push.
    h.check_equal(r.blpop(["nothing"], timeout=0.1), None, "BLPOP timing out")
    h.check_equal(r.brpop(["nothing"], timeout=0.1), None, "BRPOP timing out")
    h.check_equal(r.rpush("q", "a", "b"), 2, "RPUSH")
    h.check_equal(r.blpop(["empty", "q"], timeout=1), (b"q", b"a"), "BLPOP at once")
    h.check_equal(r.brpoplpush("q", "done", timeout=1), b"b", "BRPOPLPUSH at once")
    waiter = client(server)
    result = {}
    thread = threading.Thread(
        target=lambda: result.update(popped=waiter.brpop(["jobs"], timeout=5)))
    thread.start()
    for _ in range(500):
        if int(r.info("clients")["blocked_clients"]) == 1:
            break
        time.sleep(0.01)
    h.check_equal(int(r.info("clients")["blocked_clients"]), 1, "blocked_clients while waiting")
    r.lpush("jobs", "wake")
    thread.join(10)
    h.check_equal(result.get("popped"), (b"jobs", b"wake"), "BRPOP served by a later LPUSH")
    waiter.close()

    # The reliable queue: a producer pushes jobs while workers block for them.
    processed = []
    lock = threading.Lock()
    failures = []

    def worker(number):
        mine = client(server)
        try:
            while True:
                job = mine.blmove("pending", f"processing:{number}", timeout=2,
                                  src="RIGHT", dest="LEFT")
                if job is None:
                    return  # the queue stayed empty for two seconds: done
                if job == b"stop":
                    mine.lrem(f"processing:{number}", 1, job)
                    return
                with lock:
                    processed.append(job)
                mine.lrem(f"processing:{number}", 1, job)
        except Exception as error:  # reported below
            failures.append(f"worker {number}: {error!r}")
        finally:
            mine.close()

    workers = [threading.Thread(target=worker, args=(n,)) for n in range(QUEUE_WORKERS)]
    for thread in workers:
        thread.start()
    producer = client(server)
    for job in range(QUEUE_JOBS):
        producer.lpush("pending", f"job-{job}")
    for _ in range(QUEUE_WORKERS):
        producer.lpush("pending", "stop")
    for thread in workers:
        thread.join(60)
    h.check(not any(thread.is_alive() for thread in workers), "a queue worker did not finish")
    h.check_equal(failures, [], "failures of the queue workers")
    h.check_equal(sorted(processed), sorted(f"job-{n}".encode() for n in range(QUEUE_JOBS)),
                  "every job processed exactly once")
    h.check_equal([r.llen(f"processing:{n}") for n in range(QUEUE_WORKERS)],
                  [0] * QUEUE_WORKERS, "processing lists emptied")
    h.check_equal(r.llen("pending"), 0, "the pending queue emptied")
    # BLMPOP through execute_command (redis-py 4.3 has no helper for it).
    r.rpush("m", 1, 2, 3)
    h.check_equal(r.execute_command("BLMPOP", 1, 2, "none", "m", "LEFT", "COUNT", 2),
                  [b"m", [b"1", b"2"]], "BLMPOP at once")
    producer.close()
    r.close()
    return len(processed)


def test_queues():
    redis_result, keel_result = h.on_redis_then_keel(queues)
    h.check_equal(keel_result, redis_result, "jobs processed, keel vs redis")


def test_resp3():
    import inspect
    if "protocol" not in inspect.signature(redis.Redis.__init__).parameters:
        h.skip(f"RESP3: python3-redis {redis.__version__} speaks RESP2 only (RESP3 arrived in "
               f"redis-py 5.0); RESP3 is covered by the differential runs and the Node client")

    def resp3(server):
        r = client(server, protocol=3)
        h.check_equal(r.set("k", "v"), True, "SET over RESP3")
        h.check_equal(r.get("k"), b"v", "GET over RESP3")
        return r.client_info()["resp"]
    redis_result, keel_result = h.on_redis_then_keel(resp3)
    h.check_equal(keel_result, redis_result, "RESP3 session, keel vs redis")


def pubsub(server):
    """redis-py's PubSub object: subscribe and psubscribe, messages read with get_message,
    a handler run by run_in_thread, unsubscribe, and PUBSUB's introspection."""
    r = client(server)
    p = r.pubsub()
    p.subscribe("news", "sport")
    p.psubscribe("ch:*")
    confirmations = [p.get_message(timeout=5) for _ in range(3)]
    h.check_equal([(m["type"], m["channel"], m["data"]) for m in confirmations],
                  [("subscribe", b"news", 1), ("subscribe", b"sport", 2),
                   ("psubscribe", b"ch:*", 3)], "subscription confirmations")
    h.check_equal(r.publish("news", "hello"), 1, "PUBLISH to one subscriber")
    h.check_equal(r.publish("ch:1", "to a pattern"), 1, "PUBLISH through a pattern")
    h.check_equal(r.publish("nobody", "lost"), 0, "PUBLISH to no one")
    messages = [p.get_message(timeout=5) for _ in range(2)]
    h.check_equal([(m["type"], m["pattern"], m["channel"], m["data"]) for m in messages],
                  [("message", None, b"news", b"hello"),
                   ("pmessage", b"ch:*", b"ch:1", b"to a pattern")], "messages in order")
    h.check_equal(sorted(r.pubsub_channels()), [b"news", b"sport"], "PUBSUB CHANNELS")
    h.check_equal(r.pubsub_numsub("news", "none"), [(b"news", 1), (b"none", 0)],
                  "PUBSUB NUMSUB")
    h.check_equal(r.pubsub_numpat(), 1, "PUBSUB NUMPAT")
    p.unsubscribe("sport")
    h.check_equal(p.get_message(timeout=5)["type"], "unsubscribe", "UNSUBSCRIBE confirmed")
    p.close()

    # A handler in a thread, as applications use it: 200 messages, in order, once each.
    received = []
    done = threading.Event()

    def handler(message):
        received.append(message["data"])
        if len(received) == 200:
            done.set()
    listener = r.pubsub(ignore_subscribe_messages=True)
    listener.subscribe(**{"jobs": handler})
    worker = listener.run_in_thread(sleep_time=0.01, daemon=True)
    deadline = time.monotonic() + 10
    while r.pubsub_numsub("jobs")[0][1] != 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    for i in range(200):
        r.publish("jobs", f"job-{i}")
    h.check_equal(done.wait(10), True, "the handler received 200 messages")
    worker.stop()
    worker.join(timeout=5)
    listener.close()
    h.check_equal(received, [f"job-{i}".encode() for i in range(200)], "every message once, "
                  "in order")
    r.close()
    return confirmations + messages


def test_pubsub():
    redis_result, keel_result = h.on_redis_then_keel(pubsub)
    h.check_equal(keel_result, redis_result, "pub/sub session, keel vs redis")


def hashes_and_sorted_sets(server):
    """The hash and sorted-set API as applications use it: a user profile in a hash, a game
    leaderboard, and a sliding-window rate limiter on ZADD/ZREMRANGEBYSCORE."""
    r = client(server, decode_responses=True)
    # A profile: HSET with a mapping, reads, counters, deletes, HSCAN.
    h.check_equal(r.hset("user:1", mapping={"name": "Ada", "visits": 0, "score": "1.5"}), 3,
                  "HSET mapping")
    h.check_equal(r.hget("user:1", "name"), "Ada", "HGET")
    h.check_equal(r.hmget("user:1", ["name", "missing"]), ["Ada", None], "HMGET")
    h.check_equal(r.hincrby("user:1", "visits", 5), 5, "HINCRBY")
    h.check_equal(r.hincrbyfloat("user:1", "score", 0.25), 1.75, "HINCRBYFLOAT")
    h.check_equal(r.hexists("user:1", "name"), True, "HEXISTS")
    h.check_equal(r.hsetnx("user:1", "name", "Bob"), False, "HSETNX of a field that exists")
    h.check_equal(r.hgetall("user:1"), {"name": "Ada", "visits": "5", "score": "1.75"},
                  "HGETALL")
    h.check_equal(r.hdel("user:1", "score", "missing"), 1, "HDEL")
    h.check_equal(sorted(r.hkeys("user:1")), ["name", "visits"], "HKEYS")
    h.check_equal(r.hlen("user:1"), 2, "HLEN")
    h.check_equal(r.hstrlen("user:1", "name"), 3, "HSTRLEN")
    for i in range(600):  # past the listpack limit: a hashtable
        r.hset("big", f"f{i}", i)
    h.check_equal(sorted(k for k, _ in r.hscan_iter("big", match="f1??")),
                  sorted(f"f{i}" for i in range(100, 200)), "HSCAN with MATCH")
    h.check_equal(r.object("encoding", "big"), "hashtable", "OBJECT ENCODING of a big hash")
    expect_error(lambda: r.hincrby("user:1", "name", 1), "hash value is not an integer",
                 "HINCRBY of a string field")

    # A leaderboard.
    players = {"ada": 3100, "bob": 2800, "cy": 3100, "dee": 1500}
    h.check_equal(r.zadd("board", players), 4, "ZADD mapping")
    h.check_equal(r.zincrby("board", 250, "bob"), 3050.0, "ZINCRBY")
    h.check_equal(r.zadd("board", {"dee": 1000}, gt=True, ch=True), 0, "ZADD GT of a lower score")
    h.check_equal(r.zadd("board", {"dee": 1700}, gt=True, ch=True), 1, "ZADD GT of a higher score")
    top = r.zrevrange("board", 0, 2, withscores=True)
    h.check_equal(top, [("cy", 3100.0), ("ada", 3100.0), ("bob", 3050.0)], "top three")
    h.check_equal(r.zrevrank("board", "bob"), 2, "ZREVRANK")
    h.check_equal(r.zscore("board", "dee"), 1700.0, "ZSCORE")
    h.check_equal(r.zcount("board", 3000, "+inf"), 3, "ZCOUNT")
    h.check_equal(r.zrangebyscore("board", 2000, 3100, start=0, num=2), ["bob", "ada"],
                  "ZRANGEBYSCORE with LIMIT")
    h.check_equal(r.zpopmin("board"), [("dee", 1700.0)], "ZPOPMIN")
    h.check_equal(r.zmscore("board", ["ada", "nobody"]), [3100.0, None], "ZMSCORE")

    # A sliding-window rate limiter: at most 5 requests per 10-second window, in transactions.
    def allowed(user, now_ms):
        key = f"rate:{user}"
        with r.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(key, 0, now_ms - 10_000)
            pipe.zadd(key, {f"{now_ms}": now_ms})
            pipe.zcard(key)
            pipe.pexpire(key, 10_000)
            _, _, count, _ = pipe.execute()
        return count <= 5
    verdicts = [allowed("ada", 1_000_000 + i * 1000) for i in range(8)]
    verdicts += [allowed("ada", 1_000_000 + 20_000)]  # the window has moved on
    h.check_equal(verdicts, [True] * 5 + [False] * 3 + [True], "rate limiter verdicts")
    result = {"profile": r.hgetall("user:1"), "board": r.zrange("board", 0, -1,
                                                                  withscores=True),
              "window": r.zrange("rate:ada", 0, -1)}
    r.close()
    return result


def test_hashes_and_sorted_sets():
    redis_result, keel_result = h.on_redis_then_keel(hashes_and_sorted_sets)
    h.check_equal(keel_result, redis_result, "hash and sorted-set session, keel vs redis")


CASES = {"session": test_session, "pipelines": test_pipelines, "pool": test_pool,
         "transactions": test_transactions, "watch_retry": test_watch_retry, "resp3": test_resp3,
         "queues": test_queues, "pubsub": test_pubsub,
         "hashes_and_sorted_sets": test_hashes_and_sorted_sets}

if __name__ == "__main__":
    if redis is None:
        print(f"FAIL: the redis module is not importable by {sys.executable}; bash .ci/deps "
              f"installs python3-redis for Debian's /usr/bin/python3")
        sys.exit(1)
    sys.exit(h.main(CASES))
