# The side-by-side benchmark of keel-server and redis-server; started by bench/run (see there
# and docs/BENCHMARKING.md). Writes one results folder: machine facts, the exact commands, every
# raw output, runs.csv and summary.csv.
import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import traceback

import cells as cells_mod
import churn
import procfs
import resp
import hash_load
import set_load
import servers
import snapshot as snap
import summary

SERVER_CORE = 0
CLIENT_CORE = 1
MAXMEMORY = "8gb"  # the same limit for both; above every data set here (10M keys, 1 GB YCSB)
CLIENT_TIMEOUT_S = 1800.0
HARNESS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HARNESS))


LOG_WORD_BYTES_MAX = 200  # longer arguments (the bits cells' 1 MB bitmap) are shortened
LOG_LINE_CHARS_MAX = 1000  # and longer command lines


def log_word(word):
    """An argument as commands.txt shows it: whole, or its start and its length."""
    text = str(word)
    if len(text) <= LOG_WORD_BYTES_MAX:
        return text
    return f"{text[:60]}...({len(text):,} chars)"


class Context:
    def __init__(self, args, out_dir):
        self.args = args
        self.out = out_dir
        self.engines = [servers.Engine("keel", args.keel, shlex.split(args.keel_args)),
                        servers.Engine("redis", args.redis)]
        self.redis_benchmark = args.redis_benchmark
        self.loadgen = args.loadgen
        self.commands = open(os.path.join(out_dir, "commands.txt"), "a")

    def log(self, argv, where=""):
        stamp = datetime.datetime.now().strftime("%H:%M:%S")
        line = shlex.join(log_word(a) for a in argv)
        if len(line) > LOG_LINE_CHARS_MAX:  # the bits cells' PFADDs of a thousand elements
            line = f"{line[:300]}...({len(argv):,} arguments, {len(line):,} chars)"
        self.commands.write(f"{stamp} {where}$ {line}\n")
        self.commands.flush()

    def start_server(self, engine, run_dir, name="server", wrapper=()):
        rel = os.path.relpath(run_dir, self.out)
        return servers.Server(engine, SERVER_CORE, os.path.join(run_dir, name), MAXMEMORY,
                              wrapper, log=lambda argv: self.log(argv, rel))

    def run_client(self, argv, run_dir, name):
        rel = os.path.relpath(run_dir, self.out)
        return servers.run_pinned(argv, CLIENT_CORE, os.path.join(run_dir, f"{name}.txt"),
                                  os.path.join(run_dir, f"{name}.err"), CLIENT_TIMEOUT_S,
                                  log=lambda a: self.log(a, rel))

    def server_command(self, server, run_dir, *args):
        self.log(["(resp)"] + list(args), os.path.relpath(run_dir, self.out))
        return server.command(*args)


def check(probe, name, ok, detail):
    probe["checks"].append({"name": name, "ok": bool(ok), "detail": str(detail)})


def snapshot(server):  # CPU readings, not the snapshot cells (those are `snap`)
    return {"server_ticks": list(procfs.process_cpu_ticks(server.pid)),
            "cores": procfs.cores_ticks()}


def measure_record(before, after, wall_s, rusage):
    return {"wall_s": wall_s, "client_rusage": rusage, "clk_tck": procfs.CLOCK_TICKS_PER_S,
            "server_core": SERVER_CORE, "client_core": CLIENT_CORE,
            "server_ticks_before": before["server_ticks"],
            "server_ticks_after": after["server_ticks"],
            "cores_before": before["cores"], "cores_after": after["cores"]}


def stat_delta(before, after, field):
    return int(after.get(field, 0)) - int(before.get(field, 0))


# ------------------------------------------------------------------------------------------------
# redis-benchmark cells


def redis_benchmark_argv(ctx, port, params, requests, test=None):
    argv = [ctx.redis_benchmark, "-h", "127.0.0.1", "-p", str(port), "-c", str(params["clients"]),
            "-n", str(requests), "-P", str(params["pipeline"]), "-d", str(params["size"]),
            "--csv"]
    if params.get("random_keys"):
        argv += ["-r", str(params["random_keys"])]
    # A cell with a command (ZRANGE, ZINCRBY) sends it as given instead of a built-in test.
    if params.get("command") and test is None:
        return argv + list(params["command"])
    test = test or params["test"]
    if test == "HGET":
        # No built-in test: the field HSET's test writes, as a custom command (after the options).
        return argv + ["HGET", "myhash", "element:__rand_int__"]
    return argv + ["-t", test.lower()]


def prepare_bits(ctx, server, params, run_dir):
    """The bits-* cells' data: a 1 MB bitmap of pseudo-random bytes, or ten dense HyperLogLogs
    of 20,000 elements each (overlapping, so that their union is not their sum)."""
    if params.get("prepare") == "bitmap":
        pattern = bytes((i * 167 + 13) & 0xFF for i in range(4096))
        ctx.server_command(server, run_dir, "SET", "bits", pattern * 256)
    elif params.get("prepare") == "hll":
        for key in range(10):
            for start in range(0, 20_000, 1000):
                elements = [f"e:{key * 5000 + i}" for i in range(start, start + 1000)]
                ctx.server_command(server, run_dir, "PFADD", f"hll:{key}", *elements)


def prepare_profile(ctx, server, params, run_dir, probe):
    """Data the measured requests touch: GET finds its key(s), LPOP finds a long list."""
    test = params["test"]
    if params.get("command"):
        prepare_bits(ctx, server, params, run_dir)
    elif test == "GET" and params.get("random_keys"):
        argv = [ctx.loadgen, "insert", "--port", str(server.port),
                "--records", str(params["random_keys"]), "--value-bytes", str(params["size"])]
        code, _, _ = ctx.run_client(argv, run_dir, "prepare")
        check(probe, "prepare exit code", code == 0, code)
    elif test == "HGET":
        rel = os.path.relpath(run_dir, ctx.out)
        ctx.log(["(resp)", "HSET", "myhash", f"{params.get('random_keys') or 1} fields"], rel)
        hash_load.send(server.port, hash_load.benchmark_commands(params.get("random_keys") or 0,
                                                                  params["size"]))
        fields = ctx.server_command(server, run_dir, "HLEN", "myhash")
        check(probe, "every field loaded", fields == (params.get("random_keys") or 1),
              f"HLEN {fields}")
    elif test == "GET":
        # Without -r every request reads the literal key "key:__rand_int__".
        ctx.server_command(server, run_dir, "SET", "key:__rand_int__", "x" * params["size"])
    elif test == "ZRANGE":
        members = []
        for i in range(cells_mod.ZRANGE_MEMBERS):
            members += [str(i), "element:%012d" % i]
        ctx.server_command(server, run_dir, "ZADD", "myzset", *members)
    elif test == "LPOP":
        # Enough elements for the warm-up and the measured pops, with a margin for the requests
        # redis-benchmark sends beyond -n when pipelining.
        pushes = (params["warmup"] + params["requests"]) * 11 // 10
        argv = redis_benchmark_argv(ctx, server.port, dict(params, pipeline=32), pushes, "LPUSH")
        code, _, _ = ctx.run_client(argv, run_dir, "prepare")
        check(probe, "prepare exit code", code == 0, code)


def start_subscribers(ctx, server, params, run_dir):
    """The pub/sub cells' subscribers (bench/harness/subscribers.py), pinned to the client core,
    running in the background once every subscription is confirmed; None for no subscriber."""
    if not params.get("subscribers"):
        return None
    argv = ["taskset", "-c", str(CLIENT_CORE), sys.executable, "-B",
            os.path.join(HARNESS, "subscribers.py"), "--port", str(server.port),
            "--channel", cells_mod.PUBSUB_CHANNEL, "--connections", str(params["subscribers"]),
            "--out", os.path.join(run_dir, "subscribers.json")]
    ctx.log(argv, os.path.relpath(run_dir, ctx.out))
    process = subprocess.Popen(argv, stdout=subprocess.PIPE,
                               stderr=open(os.path.join(run_dir, "subscribers.err"), "wb"),
                               stdin=subprocess.DEVNULL)
    if process.stdout.readline().strip() != b"ready":
        process.kill()
        process.wait()
        raise RuntimeError("the subscribers did not start; see subscribers.err")
    return process


def finish_subscribers(ctx, server, process, params, run_dir, probe):
    """Ends the subscribers with a message on the end channel and checks that each received
    every message published (the warm-up's and the measured ones)."""
    published = re.search(r"calls=(\d+)", server.info("commandstats").get("cmdstat_publish", ""))
    calls = int(published.group(1)) if published else -1
    receivers = ctx.server_command(server, run_dir, "PUBLISH",
                                   cells_mod.PUBSUB_CHANNEL + ":end", "end")
    check(probe, "every subscriber still subscribed", receivers == params["subscribers"],
          f"{receivers} receivers")
    try:
        code = process.wait(timeout=CLIENT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        code = process.wait()
    check(probe, "subscribers exit code", code == 0, code)
    counts = []
    if code == 0:
        with open(os.path.join(run_dir, "subscribers.json")) as f:
            counts = json.load(f)["counts"]
    check(probe, "every subscriber received every message",
          len(counts) == params["subscribers"] and all(c == calls for c in counts),
          f"{calls} published, received {sorted(set(counts))}")


def run_profile(ctx, cell, engine, run_dir, probe):
    params = cell.params
    server = ctx.start_server(engine, run_dir)
    subscribers = None
    try:
        prepare_profile(ctx, server, params, run_dir, probe)
        subscribers = start_subscribers(ctx, server, params, run_dir)
        code, _, _ = ctx.run_client(
            redis_benchmark_argv(ctx, server.port, params, params["warmup"]), run_dir, "warmup")
        check(probe, "warm-up exit code", code == 0, code)
        stats_before = server.info("stats")
        before = snapshot(server)
        helper_before = procfs.process_cpu_ticks(subscribers.pid) if subscribers else ()
        code, wall_s, rusage = ctx.run_client(
            redis_benchmark_argv(ctx, server.port, params, params["requests"]), run_dir, "client")
        helper_after = procfs.process_cpu_ticks(subscribers.pid) if subscribers else ()
        after = snapshot(server)
        stats_after = server.info("stats")
        probe["measure"] = measure_record(before, after, wall_s, rusage)
        if subscribers:
            probe["measure"]["helper_ticks_before"] = list(helper_before)
            probe["measure"]["helper_ticks_after"] = list(helper_after)
        probe["stats_before"], probe["stats_after"] = stats_before, stats_after
        check(probe, "redis-benchmark exit code", code == 0, code)
        processed = stat_delta(stats_before, stats_after, "total_commands_processed")
        check(probe, "commands processed >= requests", processed >= params["requests"], processed)
        errors = stat_delta(stats_before, stats_after, "total_error_replies")
        check(probe, "no error replies", errors == 0, errors)
        if params["test"] == "HGET":
            fields = ctx.server_command(server, run_dir, "HLEN", "myhash")
            check(probe, "HGET's hash kept every field", fields == (params.get("random_keys") or 1),
                  f"HLEN {fields}")
        if params["test"] == "GET":
            misses = stat_delta(stats_before, stats_after, "keyspace_misses")
            check(probe, "every GET found its key", misses == 0, f"{misses} misses")
        if params["test"] == "LPOP":
            length = ctx.server_command(server, run_dir, "LLEN", "mylist")
            check(probe, "the list never ran empty", length > 0, f"LLEN {length}")
        if subscribers:
            finish_subscribers(ctx, server, subscribers, params, run_dir, probe)
            subscribers = None
    finally:
        if subscribers:
            subscribers.kill()
            subscribers.wait()
        stop_server(server, probe)


def stop_server(server, probe, key="server"):
    server.stop()
    probe[f"{key}_exit_code"] = server.exit_code
    probe[f"{key}_rusage"] = server.rusage
    check(probe, f"{key} exited cleanly", server.exit_code == 0, server.exit_code)


# ------------------------------------------------------------------------------------------------
# YCSB-like cells


def loadgen_insert_argv(ctx, port, records, value_bytes, pipeline):
    return [ctx.loadgen, "insert", "--port", str(port), "--records", str(records),
            "--value-bytes", str(value_bytes), "--connections", "4", "--pipeline", str(pipeline)]


def loadgen_result(run_dir, name):
    with open(os.path.join(run_dir, f"{name}.txt")) as output:
        return json.loads(output.read().strip().splitlines()[-1])


def run_ycsb(ctx, cell, engine, run_dir, probe):
    params = cell.params
    server = ctx.start_server(engine, run_dir)
    try:
        code, _, _ = ctx.run_client(
            loadgen_insert_argv(ctx, server.port, params["records"], params["value_bytes"], 64),
            run_dir, "prepare")
        check(probe, "load exit code", code == 0, code)
        keys = ctx.server_command(server, run_dir, "DBSIZE")
        check(probe, "every record loaded", keys == params["records"], f"DBSIZE {keys}")

        def mix(operations, seed):
            return [ctx.loadgen, "mix", "--port", str(server.port),
                    "--records", str(params["records"]), "--operations", str(operations),
                    "--read-proportion", str(params["read_proportion"]),
                    "--value-bytes", str(params["value_bytes"]),
                    "--connections", str(params["clients"]),
                    "--pipeline", str(params["pipeline"]), "--seed", str(seed)]

        code, _, _ = ctx.run_client(mix(params["warmup"], params["seed"] + 1000), run_dir, "warmup")
        check(probe, "warm-up exit code", code == 0, code)
        before = snapshot(server)
        code, wall_s, rusage = ctx.run_client(mix(params["operations"], params["seed"]), run_dir,
                                              "client")
        after = snapshot(server)
        probe["measure"] = measure_record(before, after, wall_s, rusage)
        check(probe, "keel_loadgen exit code", code == 0, code)
        if code == 0:
            result = loadgen_result(run_dir, "client")
            check(probe, "no error replies", result["errors"] == 0, result["errors"])
            check(probe, "every read found its record", result["read_nulls"] == 0,
                  f"{result['read_nulls']} nulls")
            check(probe, "all operations done", result["requests"] == params["operations"],
                  result["requests"])
    finally:
        stop_server(server, probe)


# ------------------------------------------------------------------------------------------------
# Memory cells


def memory_reading(server):
    used = int(server.info("memory")["used_memory"])
    return used, procfs.process_rss_bytes(server.pid)


def settled(samples, window):
    """True when, over the last `window` seconds of samples, neither figure moved by more than
    SETTLE_TOLERANCE of its value."""
    if len(samples) < window + 1:
        return False
    recent = samples[-(window + 1):]
    for column in (1, 2):
        values = [s[column] for s in recent]
        if max(values) - min(values) > summary.SETTLE_TOLERANCE * max(values):
            return False
    return True


SETTLE_TIMEOUT_S = 300


def settle(server, probe, window_s):
    """Reads the figures once a second until they stop moving (Redis finishes rehashing and
    frees its old table, and allocators return pages, seconds after a large load or free);
    the samples, [seconds, used_memory, RSS]."""
    samples = []
    start = time.monotonic()
    while True:
        used, rss = memory_reading(server)
        samples.append([round(time.monotonic() - start, 3), used, rss])
        if settled(samples, window_s) or time.monotonic() - start > SETTLE_TIMEOUT_S:
            break
        time.sleep(1.0)
    check(probe, "memory figures settled", settled(samples, window_s),
          f"still moving after {SETTLE_TIMEOUT_S} s")
    return samples
LIST_KEY = "biglist"
LIST_BATCH = 1000  # elements per RPUSH


def load_list(ctx, server, run_dir, elements, element_bytes):
    """RPUSHes `elements` distinct members of `element_bytes` bytes (zero-padded numbers, which
    listpacks keep as strings, as issue 13's 16-byte members are) to one list; the load's wall
    time. Only memory is measured here, so the load runs in this process."""
    start = time.monotonic()
    ctx.log(["(resp)", "RPUSH", LIST_KEY, f"{elements} members of {element_bytes} bytes"],
            os.path.relpath(run_dir, ctx.out))
    for first in range(0, elements, LIST_BATCH):
        batch = [b"%0*d" % (element_bytes, i)
                 for i in range(first, min(first + LIST_BATCH, elements))]
        server.command("RPUSH", LIST_KEY, *batch)
    return time.monotonic() - start


def run_memory(ctx, cell, engine, run_dir, probe):
    params = cell.params
    server = ctx.start_server(engine, run_dir)
    try:
        empty_used, empty_rss = memory_reading(server)
        if params.get("kind") == "set":
            # Sets: "keys" counts members (the figures are per member), DBSIZE the sets.
            wall_s = set_load.load(server.port, params["sets"], params["members_per_set"])
            keys = ctx.server_command(server, run_dir, "DBSIZE")
            check(probe, "every set loaded", keys == params["sets"], f"DBSIZE {keys}")
            cardinality = ctx.server_command(server, run_dir, "SCARD", "set:0000000")
            check(probe, "every member loaded", cardinality == params["members_per_set"],
                  f"SCARD {cardinality}")
        elif params.get("kind") == "hash":
            # Hashes: "keys" counts fields (the figures are per field), DBSIZE the hashes.
            wall_s = hash_load.send(server.port, hash_load.memory_commands(
                params["hashes"], params["fields_per_hash"]))
            keys = ctx.server_command(server, run_dir, "DBSIZE")
            check(probe, "every hash loaded", keys == params["hashes"], f"DBSIZE {keys}")
            fields = ctx.server_command(server, run_dir, "HLEN", "hash:0000000")
            check(probe, "every field loaded", fields == params["fields_per_hash"],
                  f"HLEN {fields}")
        elif params.get("kind") == "zset":
            wall_s = set_load.load(server.port, 1, params["members_per_set"], sorted_set=True)
            cardinality = ctx.server_command(server, run_dir, "ZCARD", set_load.ZSET_KEY.decode())
            check(probe, "every member loaded", cardinality == params["members_per_set"],
                  f"ZCARD {cardinality}")
        elif params.get("kind") == "list":
            wall_s = load_list(ctx, server, run_dir, params["keys"], params["value_bytes"])
            length = ctx.server_command(server, run_dir, "LLEN", LIST_KEY)
            check(probe, "every element loaded", length == params["keys"], f"LLEN {length}")
        else:
            code, wall_s, _ = ctx.run_client(
                loadgen_insert_argv(ctx, server.port, params["keys"], params["value_bytes"], 256),
                run_dir, "client")
            check(probe, "load exit code", code == 0, code)
            keys = ctx.server_command(server, run_dir, "DBSIZE")
            check(probe, "every key loaded", keys == params["keys"], f"DBSIZE {keys}")
        samples = settle(server, probe, params["settle_window_s"])
        probe["memory"] = {"keys": params["keys"], "load_wall_s": wall_s, "samples": samples,
                           "empty_used_memory_bytes": empty_used, "empty_rss_bytes": empty_rss}
    finally:
        stop_server(server, probe)


# ------------------------------------------------------------------------------------------------
# Instructions per request under callgrind


def callgrind_server(ctx, engine, run_dir, name):
    out_file = os.path.join(run_dir, f"callgrind.{name}.out")
    wrapper = [ctx.args.valgrind, "--tool=callgrind", f"--callgrind-out-file={out_file}"]
    return ctx.start_server(engine, run_dir, f"server-{name}", wrapper), out_file


def keep_callgrind_totals(ctx, out_file, run_dir, name, annotate):
    with open(out_file, errors="replace") as profile:
        lines = [line for line in profile
                 if line.startswith("totals:") or line.startswith("summary:")]
    with open(os.path.join(run_dir, f"callgrind.{name}.totals"), "w") as totals:
        totals.writelines(lines)
    if annotate:
        # The profile itself is large; its per-function summary is kept instead.
        result = subprocess.run([ctx.args.callgrind_annotate, out_file], capture_output=True,
                                text=True, timeout=300)
        with open(os.path.join(run_dir, f"callgrind.{name}.annotate.txt"), "w") as out:
            out.write("\n".join(result.stdout.splitlines()[:80]) + "\n")
    os.remove(out_file)


def run_callgrind(ctx, cell, engine, run_dir, probe):
    params = cell.params

    def prepare(server):
        if params["test"] == "GET":
            ctx.server_command(server, run_dir, "SET", "key:__rand_int__", "x" * params["size"])

    # With the fixed load...
    server, load_file = callgrind_server(ctx, engine, run_dir, "load")
    try:
        prepare(server)
        stats_before = server.info("stats")
        code, wall_s, _ = ctx.run_client(
            redis_benchmark_argv(ctx, server.port, params, params["requests"]), run_dir, "client")
        stats_after = server.info("stats")
        check(probe, "redis-benchmark exit code", code == 0, code)
        processed = stat_delta(stats_before, stats_after, "total_commands_processed")
        check(probe, "commands processed >= requests", processed >= params["requests"], processed)
        errors = stat_delta(stats_before, stats_after, "total_error_replies")
        check(probe, "no error replies", errors == 0, errors)
    finally:
        stop_server(server, probe, "server_load")
    # ...and without it, the server idle for as long (with the same INFO calls): the difference
    # is the requests' work.
    server, idle_file = callgrind_server(ctx, engine, run_dir, "idle")
    try:
        prepare(server)
        server.info("stats")
        time.sleep(wall_s)
        server.info("stats")
    finally:
        stop_server(server, probe, "server_idle")
    probe["callgrind"] = {"load_wall_s": wall_s}
    keep_callgrind_totals(ctx, load_file, run_dir, "load", annotate=True)
    keep_callgrind_totals(ctx, idle_file, run_dir, "idle", annotate=False)


# ------------------------------------------------------------------------------------------------
# Big requests: one very large command (bench/harness/bigreq.py)

BIGREQ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bigreq.py")


def bigreq_argv(port, params, prepare=False):
    argv = [sys.executable, "-B", BIGREQ, "--port", str(port), "--kind", params["kind"],
            "--bytes", str(params["bytes"])]
    return argv + (["--prepare"] if prepare else [])


def run_bigreq(ctx, cell, engine, run_dir, probe):
    params = cell.params
    server = ctx.start_server(engine, run_dir)
    try:
        if params["kind"] == "del":
            # The keys the DEL removes: the same MSET, untimed.
            code, _, _ = ctx.run_client(bigreq_argv(server.port, dict(params, kind="mset"), True),
                                        run_dir, "prepare")
            check(probe, "prepare exit code", code == 0, code)
        keys_before = ctx.server_command(server, run_dir, "DBSIZE")
        rss_before = procfs.process_rss_bytes(server.pid)
        procfs.reset_peak_rss(server.pid)
        before = snapshot(server)
        code, wall_s, rusage = ctx.run_client(bigreq_argv(server.port, params), run_dir, "client")
        after = snapshot(server)
        probe["measure"] = measure_record(before, after, wall_s, rusage)
        check(probe, "bigreq exit code (the reply expected)", code == 0, code)
        probe["bigreq"] = {"rss_before_bytes": rss_before, "keys_before": keys_before,
                           "peak_rss_bytes": procfs.process_peak_rss_bytes(server.pid),
                           "rss_after_bytes": procfs.process_rss_bytes(server.pid)}
        if code == 0:
            result = loadgen_result(run_dir, "client")
            keys = ctx.server_command(server, run_dir, "DBSIZE")
            check(probe, "the keys the command leaves", keys == result["keys_after"],
                  f"DBSIZE {keys}, expected {result['keys_after']}")
            check(probe, "PINGs answered meanwhile", result["pings"] > 0 and
                  result["ping_errors"] == 0, f"{result['pings']} PINGs, "
                  f"{result['ping_errors']} errors")
    finally:
        stop_server(server, probe)


# ------------------------------------------------------------------------------------------------
# Memory given back after churn (bench/harness/churn.py)


def run_churn(ctx, cell, engine, run_dir, probe):
    """Writes memory and frees it (FLUSHALL of many keys, or DEL of one big value after a GET of
    it), then reads RSS until it settles: how much the server keeps of what it no longer uses."""
    params = cell.params
    server = ctx.start_server(engine, run_dir)
    try:
        empty_used, empty_rss = memory_reading(server)
        rel = os.path.relpath(run_dir, ctx.out)
        if params["kind"] == "flushall":
            keys = params["bytes"] // params["value_bytes"]
            ctx.log(["(resp)", "MSET", f"{keys} keys of {params['value_bytes']} bytes"], rel)
            wall_s = churn.fill(server.port, keys, params["value_bytes"])
            loaded = ctx.server_command(server, run_dir, "DBSIZE")
            check(probe, "every key loaded", loaded == keys, f"DBSIZE {loaded}")
            full_used, full_rss = memory_reading(server)
            ctx.server_command(server, run_dir, "FLUSHALL")
        else:
            ctx.log(["(resp)", "SET", "big", f"{params['bytes']} bytes", "GET", "big"], rel)
            wall_s = churn.set_big(server.port, params["bytes"])
            length = churn.read_big(server.port)
            check(probe, "GET read the whole value", length == params["bytes"], length)
            full_used, full_rss = memory_reading(server)
            ctx.server_command(server, run_dir, "DEL", "big")
        left = ctx.server_command(server, run_dir, "DBSIZE")
        check(probe, "the data freed", left == 0, f"DBSIZE {left}")
        samples = settle(server, probe, params["settle_window_s"])
        probe["churn"] = {"load_wall_s": wall_s, "samples": samples,
                          "empty_used_memory_bytes": empty_used, "empty_rss_bytes": empty_rss,
                          "full_used_memory_bytes": full_used, "full_rss_bytes": full_rss,
                          "peak_rss_bytes": procfs.process_peak_rss_bytes(server.pid)}
    finally:
        stop_server(server, probe)


# ------------------------------------------------------------------------------------------------
# Background saves (bench/harness/snapshot.py)

SAVE_POLL_S = 0.01


def background_save(ctx, server, run_dir):
    """BGSAVE, then waits for it: {"wall_s" (until the file is written: Keel's save done, or
    Redis's child gone), "done_s" (until INFO says no save runs), "server_cpu_s" (the server's own
    CPU meanwhile), "child_cpu_s" (its reaped children's: Redis's save child), "fork_usec",
    "children", "start_ns", "end_ns" (CLOCK_MONOTONIC, the clock keel_loadgen's timeline uses)}."""
    utime, stime = procfs.process_cpu_ticks(server.pid)
    children_before = snap.children_cpu_s(server.pid)
    start_ns = time.monotonic_ns()
    reply = ctx.server_command(server, run_dir, "BGSAVE")
    if not isinstance(reply, bytes) or not reply.startswith(b"Background saving"):
        raise RuntimeError(f"BGSAVE answered {reply!r}")
    children, end_ns = set(), None
    with server.client() as client:
        while True:
            live = snap.child_pids(server.pid)
            children.update(live)
            info = resp.parse_info(client.command("INFO", "persistence"))
            now_ns = time.monotonic_ns()
            if end_ns is None and not live and (children or info["rdb_bgsave_in_progress"] == "0"):
                end_ns = now_ns  # the file is written: no child any more, or the save is over
            if info["rdb_bgsave_in_progress"] == "0":
                # Redis may reap its child between the two readings above: then the file was
                # written by now.
                end_ns = end_ns or now_ns
                break
            time.sleep(SAVE_POLL_S)
        fork_usec = int(resp.parse_info(client.command("INFO", "stats"))["latest_fork_usec"])
    done_ns = time.monotonic_ns()
    if info["rdb_last_bgsave_status"] != "ok":
        raise RuntimeError(f"the background save failed: {info}")
    utime_after, stime_after = procfs.process_cpu_ticks(server.pid)
    return {"wall_s": (end_ns - start_ns) / 1e9, "done_s": (done_ns - start_ns) / 1e9,
            "server_cpu_s": (utime_after + stime_after - utime - stime) / procfs.CLOCK_TICKS_PER_S,
            "child_cpu_s": snap.children_cpu_s(server.pid) - children_before,
            "fork_usec": fork_usec, "children": len(children), "start_ns": start_ns,
            "end_ns": end_ns}


def start_pinned(ctx, argv, run_dir, name):
    """Starts a client program on the client core without waiting for it."""
    full = ["taskset", "-c", str(CLIENT_CORE)] + argv
    ctx.log(full, os.path.relpath(run_dir, ctx.out))
    out = open(os.path.join(run_dir, f"{name}.txt"), "wb")
    err = open(os.path.join(run_dir, f"{name}.err"), "wb")
    process = subprocess.Popen(full, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                               preexec_fn=servers._die_with_harness)
    out.close()
    err.close()
    return process


def run_snapshot(ctx, cell, engine, run_dir, probe):
    """Fills the server, saves it in the background while idle (the save's own speed), then again
    under a write load (the memory of the save and the load's latency meanwhile), then starts a
    server on the file written (how long a restart takes to load it)."""
    params = cell.params
    keys = params["keys"]
    server = ctx.start_server(engine, run_dir)
    dump_path = os.path.join(server.workdir, "dump.rdb")
    result = {}
    try:
        code, fill_s, _ = ctx.run_client(
            loadgen_insert_argv(ctx, server.port, keys, params["value_bytes"], 256), run_dir, "fill")
        check(probe, "fill exit code", code == 0, code)
        loaded = ctx.server_command(server, run_dir, "DBSIZE")
        check(probe, "every key loaded", loaded == keys, f"DBSIZE {loaded}")
        time.sleep(params["settle_s"])
        result["fill_s"] = fill_s
        result["memory_full_bytes"] = snap.memory_bytes(server.pid)

        result["idle"] = background_save(ctx, server, run_dir)
        result["rdb_bytes"] = os.path.getsize(dump_path)
        os.remove(dump_path)

        timeline = os.path.join(run_dir, "load.timeline")
        load = start_pinned(ctx, [ctx.loadgen, "mix", "--port", str(server.port), "--records",
                                  str(keys), "--operations", str(10 ** 12), "--read-proportion",
                                  "0", "--value-bytes", str(params["value_bytes"]),
                                  "--connections", str(params["clients"]), "--pipeline",
                                  str(params["pipeline"]), "--distribution", "uniform",
                                  "--timeline", timeline], run_dir, "load")
        try:
            time.sleep(params["baseline_s"])
            memory_before = snap.memory_bytes(server.pid)
            sampler = snap.MemorySampler(server.pid)
            try:
                under_load = background_save(ctx, server, run_dir)
            finally:
                peak = sampler.stop()
            time.sleep(params["after_s"])
        finally:
            load.send_signal(signal.SIGUSR1)
            code = load.wait(timeout=120)
        check(probe, "load exit code", code == 0, code)
        load_result = loadgen_result(run_dir, "load")
        check(probe, "no error replies under load", load_result["errors"] == 0,
              load_result["errors"])
        words = snap.read_timeline(timeline)
        os.remove(timeline)  # tens of MB; the percentiles are kept
        start, end = under_load["start_ns"], under_load["end_ns"]
        under_load["memory_before_bytes"] = memory_before
        under_load["memory_peak_bytes"] = peak
        under_load["memory_samples"] = sampler.samples
        under_load["latency_before"] = snap.window_latencies(
            words, start - int(params["baseline_s"] * 1e9) + int(1e9), start)
        under_load["latency_during"] = snap.window_latencies(words, start, end)
        under_load["load"] = load_result
        result["under_load"] = under_load
        check(probe, "replies read during the save", under_load["latency_during"]["replies"] > 0,
              under_load["latency_during"])
    finally:
        stop_server(server, probe)

    # A restart on the file the save under load wrote, in a folder of its own.
    restart_dir = os.path.join(run_dir, "restart")
    os.makedirs(restart_dir, exist_ok=True)
    os.rename(dump_path, os.path.join(restart_dir, "dump.rdb"))
    start = time.monotonic()
    restarted = servers.Server(engine, SERVER_CORE, restart_dir, MAXMEMORY,
                               log=lambda argv: ctx.log(argv, os.path.relpath(run_dir, ctx.out)))
    try:
        result["restart_s"] = time.monotonic() - start
        utime, stime = procfs.process_cpu_ticks(restarted.pid)
        result["restart_cpu_s"] = (utime + stime) / procfs.CLOCK_TICKS_PER_S
        keys_loaded = ctx.server_command(restarted, run_dir, "DBSIZE")
        check(probe, "the restart loaded every key", keys_loaded == keys, f"DBSIZE {keys_loaded}")
        result["restart_memory_bytes"] = snap.memory_bytes(restarted.pid)
        os.remove(os.path.join(restart_dir, "dump.rdb"))
    finally:
        stop_server(restarted, probe, "restart_server")
    probe["snapshot"] = result


# ------------------------------------------------------------------------------------------------
# Micro-benchmarks (Keel alone)


def run_micro(ctx, cell, engine, run_dir, probe):
    params = cell.params
    argv = [ctx.args.micro_bench, f"--benchmark_repetitions={params['repetitions']}",
            f"--benchmark_min_time={params['min_time_s']}",
            f"--benchmark_out={os.path.join(run_dir, 'micro.json')}",
            "--benchmark_out_format=json"]
    rel = os.path.relpath(run_dir, ctx.out)
    # On the server's core: these time Keel's request path.
    code, _, _ = servers.run_pinned(argv, SERVER_CORE, os.path.join(run_dir, "client.txt"),
                                    os.path.join(run_dir, "client.err"), CLIENT_TIMEOUT_S,
                                    log=lambda a: ctx.log(a, rel))
    check(probe, "keel_micro_bench exit code", code == 0, code)


RUNNERS = {"profile": run_profile, "ycsb": run_ycsb, "memory": run_memory,
           "callgrind": run_callgrind, "bigreq": run_bigreq, "churn": run_churn,
           "snapshot": run_snapshot, "micro": run_micro}


# ------------------------------------------------------------------------------------------------
# The run


def tool_version(argv):
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        return (result.stdout or result.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError) as error:
        return f"unavailable ({error})"


def read_first(path, default=""):
    try:
        with open(path) as source:
            return source.read().strip()
    except OSError:
        return default


def machine_facts(ctx):
    model = ""
    for line in read_first("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem_total = read_first("/proc/meminfo").splitlines()[0]
    git = lambda *a: subprocess.run(["git", "-C", REPO] + list(a), capture_output=True,
                                    text=True).stdout.strip()
    facts = {
        "cpu_model": model,
        "cores_online": os.cpu_count(),
        "kernel": platform.release(),
        "uname": " ".join(platform.uname()),
        "memory": mem_total,
        "virtualization": tool_version(["systemd-detect-virt"]),
        "transparent_hugepage": read_first("/sys/kernel/mm/transparent_hugepage/enabled"),
        "overcommit_memory": read_first("/proc/sys/vm/overcommit_memory"),
        "cpu_governor": read_first("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
                                   "none (no cpufreq)"),
        "keel_server": ctx.engines[0].version(),
        "keel_commit": git("rev-parse", "HEAD"),
        "keel_tree_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "redis_server": ctx.engines[1].version(),
        "redis_benchmark": tool_version([ctx.redis_benchmark, "--version"]),
        "valgrind": tool_version([ctx.args.valgrind, "--version"]),
        "compiler": tool_version(["c++", "--version"]),
        "python": platform.python_version(),
        "load_average_at_start": read_first("/proc/loadavg"),
    }
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    with open(os.path.join(ctx.out, "lscpu.txt"), "w") as out:
        out.write(lscpu)
    return facts


def idle_check(seconds=3.0):
    """Busy share of each core over a few seconds before the run: other work on the machine."""
    before = procfs.cores_ticks()
    time.sleep(seconds)
    after = procfs.cores_ticks()
    return {str(core): round((procfs.busy_ticks(after[core]) - procfs.busy_ticks(before[core])) /
                             (seconds * procfs.CLOCK_TICKS_PER_S), 3) for core in after}


def detect_support(ctx, plan):
    """COMMAND INFO on each engine for every command the plan needs: a null entry is a command
    the engine does not have, and its cells are reported as not supported."""
    needed = sorted({name for cell in plan for name in cell.requires})
    supported, replies = {}, {}
    for engine in ctx.engines:
        run_dir = os.path.join(ctx.out, "raw", "support", engine.name)
        os.makedirs(run_dir, exist_ok=True)
        server = ctx.start_server(engine, run_dir)
        try:
            reply = (ctx.server_command(server, run_dir, "COMMAND", "INFO", *needed)
                     if needed else [])
        finally:
            server.stop()
        supported[engine.name] = {name: entry is not None for name, entry in zip(needed, reply)}
        replies[engine.name] = {name: entry is not None and entry[0].decode()
                                for name, entry in zip(needed, reply)}
    record = {"method": "COMMAND INFO " + " ".join(needed), "supported": supported,
              "reply_names": replies}
    with open(os.path.join(ctx.out, "support.json"), "w") as out:
        json.dump(record, out, indent=1, sort_keys=True)
    return supported


def describe(row):
    if row.get("status") != "ok":
        return f"{row.get('status')} {row.get('detail', '')}".strip()
    if row.get("rps"):
        text = (f"{float(row['rps']):,.0f} req/s, p99 {row['p99_ms']} ms, "
                f"CPU {row['cpu_s_per_M']} s/M, client core {float(row['client_util']):.0%}")
        noise = max(float(row["other_core0"]), float(row["other_core1"]))
        return text + (f", OTHER LOAD {noise:.0%}" if noise > summary.NOISE_LIMIT else "")
    if row.get("rss_after_churn_bytes"):
        return (f"RSS {float(row['full_rss_bytes']) / 1e6:,.0f} MB full, "
                f"{float(row['rss_after_churn_bytes']) / 1e6:,.1f} MB once freed, settled after "
                f"{row['settle_s']} s")
    if row.get("rss_bytes_per_key"):
        return (f"RSS {float(row['rss_bytes_per_key']):.1f} B/key, used_memory "
                f"{float(row['used_memory_bytes_per_key']):.1f} B/key, settled after "
                f"{row['settle_s']} s")
    if row.get("request_s"):
        return (f"{float(row['request_s']):.3f} s, server CPU {float(row['request_cpu_s']):.2f} "
                f"s, peak RSS {float(row['peak_rss_bytes']) / 1e6:.0f} MB, PINGs meanwhile p99 "
                f"{row['p99_ms']} ms, max {row['max_ms']} ms")
    if row.get("instructions_per_request"):
        return f"{float(row['instructions_per_request']):,.0f} instructions/request"
    return "ok"


def parse_args(argv):
    build = os.path.join(REPO, "build", "release")
    parser = argparse.ArgumentParser(prog="bench/run", description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="every group at a small scale, 1 repetition: a smoke run")
    parser.add_argument("--cells", help="comma-separated id patterns, e.g. 'SET-P32-*,mem-*'")
    parser.add_argument("--reps", type=int, help="repetitions of every cell")
    parser.add_argument("--requests", type=int,
                        help="requests per redis-benchmark run (and YCSB operations)")
    parser.add_argument("--list", action="store_true", help="print the plan and exit")
    parser.add_argument("--out", help="results folder (default: bench/results/<timestamp> for "
                        "the full run, build/bench-results/<timestamp> otherwise)")
    parser.add_argument("--server-core", type=int, default=SERVER_CORE,
                        help="the core every server is pinned to (default 0)")
    parser.add_argument("--client-core", type=int, default=CLIENT_CORE,
                        help="the core of the load generators and of this harness (default 1)")
    parser.add_argument("--keel", default=os.path.join(build, "io", "keel-server"))
    parser.add_argument("--keel-args", default="",
                        help="more keel-server options, e.g. '--io-backend epoll' (the network "
                             "backend; the default is io_uring where the kernel allows it)")
    parser.add_argument("--redis", default=shutil.which("redis-server") or "redis-server")
    parser.add_argument("--redis-benchmark",
                        default=shutil.which("redis-benchmark") or "redis-benchmark")
    parser.add_argument("--loadgen", default=os.path.join(build, "bench", "keel_loadgen"))
    parser.add_argument("--micro-bench", default=os.path.join(build, "bench", "keel_micro_bench"))
    parser.add_argument("--valgrind", default=shutil.which("valgrind") or "valgrind")
    parser.add_argument("--callgrind-annotate",
                        default=shutil.which("callgrind_annotate") or "callgrind_annotate")
    return parser.parse_args(argv)


def build_plan(args):
    plan = cells_mod.quick_plan() if args.quick else cells_mod.full_plan()
    plan = cells_mod.select(plan, args.cells)
    if args.reps or args.requests:
        scaled = []
        for cell in plan:
            params = dict(cell.params)
            if args.requests and "requests" in params and cell.group == "profile":
                params["requests"] = args.requests
                params["warmup"] = max(args.requests // 10, 1000)
            if args.requests and cell.group == "ycsb":
                params["operations"] = args.requests
                params["warmup"] = max(args.requests // 10, 1000)
            reps = args.reps if args.reps and cell.group != "micro" else cell.reps
            scaled.append(cells_mod.Cell(cell.id, cell.group, cell.requires, params, reps))
        plan = scaled
    return plan


def main(argv):
    global SERVER_CORE, CLIENT_CORE
    args = parse_args(argv)
    SERVER_CORE, CLIENT_CORE = args.server_core, args.client_core
    if SERVER_CORE == CLIENT_CORE:
        raise SystemExit("the server and the load generator need two different cores")
    plan = build_plan(args)
    full = not (args.quick or args.cells or args.reps or args.requests)
    runs_total = sum(c.reps * (1 if c.group == "micro" else 2) for c in plan)
    if args.list:
        for cell in plan:
            print(f"{cell.id:20} {cell.group:9} reps {cell.reps}  requires "
                  f"{','.join(cell.requires) or '-'}  {json.dumps(cell.params)}")
        print(f"{len(plan)} cells, at most {runs_total} runs ({'full' if full else 'partial'})")
        return 0
    for path in (args.keel, args.loadgen, args.redis, args.redis_benchmark):
        if not shutil.which(path):
            raise SystemExit(f"not found or not executable: {path} (build with bench/run)")
    if any(c.group == "callgrind" for c in plan) and not shutil.which(args.valgrind):
        raise SystemExit("valgrind is needed for the callgrind cells: apt-get install valgrind")
    if any(c.group == "micro" for c in plan) and not shutil.which(args.micro_bench):
        raise SystemExit(f"not found: {args.micro_bench}")

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    default_root = (os.path.join(REPO, "bench", "results") if full else
                    os.path.join(REPO, "build", "bench-results"))
    out = os.path.abspath(args.out or os.path.join(default_root, stamp))
    os.makedirs(os.path.join(out, "raw"), exist_ok=False)
    # The harness itself waits on the client's core, never on the server's.
    os.sched_setaffinity(0, {CLIENT_CORE})
    # SIGTERM unwinds like Ctrl-C, so the running server is stopped and waited for.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    ctx = Context(args, out)
    started = time.time()
    manifest = {
        "profile": "full" if full else ("quick" if args.quick else "partial"),
        "argv": ["bench/run"] + list(argv), "started": datetime.datetime.now().isoformat(),
        "complete": False, "engines": [e.name for e in ctx.engines],
        "binaries": {e.name: e.binary for e in ctx.engines},
        "keel_args": ctx.engines[0].extra_args,
        "cores": {"server": SERVER_CORE, "client": CLIENT_CORE}, "maxmemory": MAXMEMORY,
        "server_args": servers.server_args("<port>", "<run folder>/server", MAXMEMORY),
        "client_bound_util": summary.CLIENT_BOUND_UTIL, "noise_limit": summary.NOISE_LIMIT,
        "cells": [{"id": c.id, "group": c.group, "requires": list(c.requires),
                   "params": c.params, "reps": c.reps} for c in plan],
    }
    print(f"results: {out}\nchecking that the cores are quiet...", flush=True)
    manifest["idle_before"] = idle_check()
    facts = machine_facts(ctx)
    with open(os.path.join(out, "machine.json"), "w") as machine:
        json.dump(facts, machine, indent=1, sort_keys=True)
    busy = max(manifest["idle_before"].values())
    if busy > summary.NOISE_LIMIT:
        print(f"WARNING: a core was {busy:.0%} busy before the run started: other work on this "
              "machine will distort the figures", flush=True)

    def save_manifest():
        with open(os.path.join(out, "manifest.json"), "w") as manifest_file:
            json.dump(manifest, manifest_file, indent=1)

    save_manifest()
    supported = detect_support(ctx, plan)
    order = open(os.path.join(out, "raw", "order.txt"), "w")
    failures, done = [], 0
    for index, cell in enumerate(plan):
        engines = [e for e in ctx.engines if cell.group != "micro" or e.name == "keel"]
        if index % 2:
            engines.reverse()  # alternate which engine opens each cell
        measured = [e for e in engines if all(supported[e.name].get(c) for c in cell.requires)]
        for engine in engines:
            if engine not in measured:
                print(f"[{index + 1}/{len(plan)}] {cell.id} {engine.name}: not supported "
                      f"(COMMAND INFO has no {'/'.join(cell.requires)})", flush=True)
        for rep in range(1, cell.reps + 1):
            for engine in measured:  # A B A B ...
                rel = os.path.join(cell.id, f"{engine.name}-{rep}")
                run_dir = os.path.join(out, "raw", rel)
                os.makedirs(run_dir)
                probe = {"cell": cell.id, "group": cell.group, "engine": engine.name, "rep": rep,
                         "params": cell.params, "checks": [],
                         "started": datetime.datetime.now().isoformat()}
                try:
                    RUNNERS[cell.group](ctx, cell, engine, run_dir, probe)
                except Exception as error:  # recorded, and the run goes on with the next cell
                    probe["error"] = f"{type(error).__name__}: {error}"
                    probe["traceback"] = traceback.format_exc()
                with open(os.path.join(run_dir, "probe.json"), "w") as probe_file:
                    json.dump(probe, probe_file, indent=1)
                order.write(rel + "\n")
                order.flush()
                done += 1
                row = summary.derive_run(run_dir) if cell.group != "micro" else {
                    "status": "failed" if probe.get("error") else "ok",
                    "detail": probe.get("error", "")}
                if row["status"] != "ok":
                    failures.append(f"{rel}: {row['status']} {row.get('detail', '')}")
                print(f"[{index + 1}/{len(plan)}] {cell.id} {engine.name} {rep}/{cell.reps} "
                      f"({done}/{runs_total}, {time.time() - started:.0f} s): "
                      f"{describe(summary.as_text_rows(summary.RUN_COLUMNS, [row])[0])}",
                      flush=True)
    order.close()
    runs, cell_rows = summary.write_derived(out)
    manifest["finished"] = datetime.datetime.now().isoformat()
    manifest["duration_s"] = round(time.time() - started)
    manifest["failures"] = failures
    manifest["complete"] = not failures
    manifest["load_average_at_end"] = read_first("/proc/loadavg")
    save_manifest()
    noisy = sorted({r["cell"] for r in cell_rows if r.get("noise") and r["noise"] > 0.1})
    print(f"\n{len(runs)} runs in {manifest['duration_s']} s; results in {out}")
    if noisy:
        print(f"other load above {summary.NOISE_LIMIT:.0%} of a core during: {', '.join(noisy)}")
    if failures:
        print("FAILED OR INVALID RUNS (the folder is marked incomplete):\n  " +
              "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
