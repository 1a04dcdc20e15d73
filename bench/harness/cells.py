# The benchmark plan: every cell (one workload, measured on both engines) with its parameters.
# A cell's id names it in results folders, CSVs and the README; --cells picks cells by id
# patterns. The full plan is the published one; --quick scales every group down for a smoke run.
import fnmatch
from dataclasses import dataclass, field

CLIENTS = 50  # redis-benchmark -c 50, the classic profile
PIPELINES = (32, 16, 1)
VALUE_SIZES = (3, 64)  # redis-benchmark's default payload, and a realistic small value
PROFILE_TESTS = ("SET", "GET", "LPUSH", "LPOP", "SADD")
RANDOM_TESTS = ("SET", "GET", "SADD")  # the tests that use __rand_int__ and so honour -r


@dataclass(frozen=True)
class Cell:
    id: str
    group: str  # profile | ycsb | memory | callgrind | bigreq | churn | snapshot | micro
    requires: tuple  # commands an engine must know (COMMAND INFO) to be measured
    params: dict = field(hash=False, compare=False)
    reps: int = 3


def _profile_cells(requests, random_keys, reps):
    cells = []
    for pipeline in PIPELINES:
        for test in PROFILE_TESTS:
            # SADD adds "element:__rand_int__": redis-benchmark ignores -d for it.
            sizes = (None,) if test == "SADD" else VALUE_SIZES
            for size in sizes:
                cells.append(_profile_cell(test, pipeline, size, None, requests, reps))
        for test in RANDOM_TESTS:
            size = None if test == "SADD" else 3
            cells.append(_profile_cell(test, pipeline, size, random_keys, requests, reps))
    return cells


def _profile_cell(test, pipeline, size, random_keys, requests, reps):
    name = f"{test}-P{pipeline}" + (f"-d{size}" if size is not None else "")
    if random_keys:
        name += "-rand"
    requires = (test, "LPUSH") if test == "LPOP" else (test,)
    return Cell(name, "profile", requires,
                {"test": test, "pipeline": pipeline, "size": size if size is not None else 3,
                 "random_keys": random_keys, "requests": requests,
                 "warmup": max(requests // 10, 1000), "clients": CLIENTS}, reps)


# Hash cells (issue 14): HSET (redis-benchmark's "HSET myhash element:__rand_int__ xxx") and HGET
# (the same field read back, sent as a custom command: redis-benchmark has no HGET test), on one
# field and over -r 1,000,000 fields of one hash.
HASH_PIPELINES = (32, 16)
HASH_TESTS = ("HSET", "HGET")


def _hash_profile_cells(requests, random_keys, reps):
    cells = []
    for pipeline in HASH_PIPELINES:
        for test in HASH_TESTS:
            for keys in (None, random_keys):
                cells.append(_profile_cell(test, pipeline, 3, keys, requests, reps))
    return cells


# Sorted sets (issue 14): ZADD, ZRANGE 0 99 and ZINCRBY on one key "myzset". ZADD is
# redis-benchmark's own test (member "element:__rand_int__", score __rand_int__ under -r);
# ZINCRBY and ZRANGE are sent as given commands. ZADD and ZINCRBY run with -r, so the set grows
# towards a million members; ZRANGE reads 100 members of a set of ZRANGE_MEMBERS, loaded first.
ZRANGE_MEMBERS = 1000
ZSET_COMMANDS = {
    "ZADD": None,
    "ZRANGE": ("ZRANGE", "myzset", "0", "99"),
    "ZINCRBY": ("ZINCRBY", "myzset", "1", "element:__rand_int__"),
}


def _zset_cells(requests, random_keys, reps):
    cells = []
    for pipeline in (32, 16):
        for test, command in ZSET_COMMANDS.items():
            rand = test != "ZRANGE"
            name = f"{test}-P{pipeline}" + ("-rand" if rand else "")
            cells.append(Cell(name, "profile", (test,),
                              {"test": test, "command": command, "pipeline": pipeline,
                               "size": 3, "random_keys": random_keys if rand else None,
                               "requests": requests, "warmup": max(requests // 10, 1000),
                               "clients": CLIENTS}, reps))
    return cells


def _ycsb_cells(records, operations, reps):
    cells = []
    for pipeline in (16, 1):
        for workload, reads in (("A", 0.5), ("B", 0.95), ("C", 1.0)):
            cells.append(Cell(f"ycsb-{workload}-P{pipeline}", "ycsb", ("GET", "SET"),
                              {"workload": workload, "read_proportion": reads,
                               "records": records, "operations": operations,
                               "warmup": max(operations // 10, 1000), "pipeline": pipeline,
                               "clients": CLIENTS, "value_bytes": 1024, "seed": 1}, reps))
    return cells


# The memory figures are read once they have not moved for `window` seconds. 30 s: on this
# machine Redis freed its old 64 MiB hash table 9 s after a 10M-key load, its figures flat for the
# 8 s before that; a shorter window would have read the higher figure.
def _memory_cell(keys, label, reps, window):
    return Cell(f"mem-{label}", "memory", ("SET",),
                {"keys": keys, "value_bytes": 64, "settle_window_s": window}, reps)


# One list of `elements` members of 16 bytes (issue 13's cell): bytes per element, settled.
def _list_memory_cell(elements, label, reps, window):
    return Cell(f"mem-list-{label}", "memory", ("RPUSH", "LLEN"),
                {"kind": "list", "keys": elements, "value_bytes": 16,
                 "settle_window_s": window}, reps)


# Sets of 16-byte members (the memory cells): one set of 1,000,000 members, and 100,000
# sets of 10. The figures are per member ("keys" counts members).
def _set_memory_cell(sets, members_per_set, label, reps, window):
    return Cell(f"mem-set-{label}", "memory", ("SADD",),
                {"kind": "set", "sets": sets, "members_per_set": members_per_set,
                 "keys": sets * members_per_set, "settle_window_s": window}, reps)


# Hashes of 16-byte fields and values: one hash of 1,000,000 fields (a hashtable), and 100,000
# hashes of 10 (listpacks). The figures are per field ("keys" counts fields).
def _hash_memory_cell(hashes, fields_per_hash, label, reps, window):
    return Cell(f"mem-hash-{label}", "memory", ("HSET",),
                {"kind": "hash", "hashes": hashes, "fields_per_hash": fields_per_hash,
                 "keys": hashes * fields_per_hash, "settle_window_s": window}, reps)
# One sorted set of `members` 16-byte members, scores 0..members-1 (the memory cell).
def _zset_memory_cell(members, label, reps, window):
    return Cell(f"mem-zset-{label}", "memory", ("ZADD",),
                {"kind": "zset", "sets": 1, "members_per_set": members, "keys": members,
                 "settle_window_s": window}, reps)


def _callgrind_cells(requests_p32, requests_p1, reps):
    cells = []
    for pipeline, requests in ((32, requests_p32), (1, requests_p1)):
        for test in ("SET", "GET"):
            cells.append(Cell(f"cg-{test}-P{pipeline}-d3", "callgrind", (test,),
                              {"test": test, "pipeline": pipeline, "size": 3,
                               "requests": requests, "clients": CLIENTS}, reps))
    return cells


# One very large command each (bench/harness/bigreq.py): a 100 MB MSET of small pairs, the DEL
# of all its keys, and a 512 MB SET (Redis's largest bulk, proto-max-bulk-len's default). The
# figures are the command's time, the server's CPU for it, its peak RSS, and how long another
# client's PINGs waited meanwhile.
def _bigreq_cells(mset_bytes, set_bytes, reps):
    return [
        Cell(f"big-MSET-{mset_bytes // 1_000_000}MB", "bigreq", ("MSET",),
             {"kind": "mset", "bytes": mset_bytes}, reps),
        Cell(f"big-DEL-{mset_bytes // 1_000_000}MB", "bigreq", ("MSET", "DEL"),
             {"kind": "del", "bytes": mset_bytes}, reps),
        Cell(f"big-SET-{set_bytes >> 20}MiB", "bigreq", ("SET",),
             {"kind": "set", "bytes": set_bytes}, reps),
    ]


# Memory given back (issue 11 item 5): about 1 GB of 1 KB values written then FLUSHALL, and one
# 512 MiB value written, read back whole, then DEL; RSS is read until it settles. Redis's
# jemalloc returns freed pages within seconds; an allocator that keeps them shows here.
def _churn_cells(load_bytes, value_bytes, big_bytes, reps, settle_window_s):
    return [
        Cell(f"churn-FLUSHALL-{load_bytes // 1_000_000}MB", "churn", ("MSET", "FLUSHALL"),
             {"kind": "flushall", "bytes": load_bytes, "value_bytes": value_bytes,
              "settle_window_s": settle_window_s}, reps),
        Cell(f"churn-DEL-{big_bytes >> 20}MiB", "churn", ("SET", "GET", "DEL"),
             {"kind": "del", "bytes": big_bytes, "settle_window_s": settle_window_s}, reps),
    ]


# The bit and HyperLogLog commands (issue 15), as redis-benchmark custom commands on one key
# each: SETBIT and GETBIT at one offset of a 1 MB bitmap, BITCOUNT of all of it, PFADD of
# random elements, and PFCOUNT of one dense HyperLogLog (its cached count) and of the union of
# ten (computed every time). The heavy ones run at pipeline 1 and fewer requests.
BITMAP_BITS = 8 * 1024 * 1024  # a 1 MB string


def _bits_cells(requests, heavy_requests, reps):
    def cell(name, command, pipeline, count, random_keys=None, prepare=None):
        return Cell(f"bits-{name}-P{pipeline}", "profile", (command[0],),
                    {"test": command[0], "command": command, "pipeline": pipeline, "size": 3,
                     "random_keys": random_keys, "requests": count, "prepare": prepare,
                     "warmup": max(count // 10, 1000), "clients": CLIENTS}, reps)

    hll_keys = [f"hll:{i}" for i in range(10)]
    return [
        # redis-benchmark's __rand_int__ is 12 zero-padded digits, which no bit offset accepts
        # (string2ll refuses leading zeros): the offset is fixed, near the end of the bitmap.
        cell("SETBIT", ["SETBIT", "bits", str(BITMAP_BITS - 77), "1"], 16, requests, None,
             "bitmap"),
        cell("GETBIT", ["GETBIT", "bits", str(BITMAP_BITS - 77)], 16, requests, None, "bitmap"),
        cell("BITCOUNT-1MB", ["BITCOUNT", "bits"], 1, heavy_requests, None, "bitmap"),
        cell("PFADD", ["PFADD", "hll:add", "element:__rand_int__"], 16, requests, 1_000_000),
        cell("PFCOUNT-1key", ["PFCOUNT", "hll:0"], 16, requests, None, "hll"),
        cell("PFCOUNT-10keys", ["PFCOUNT"] + hll_keys, 1, heavy_requests, None, "hll"),
    ]


# Pub/sub (issue 17): PUBLISH of a 64-byte message to one channel from redis-benchmark's 50
# connections, with no subscriber (the publisher's own cost) and fanned out to 10 and to 100
# subscribers (bench/harness/subscribers.py, on the client core, each checked to receive every
# message). Figures are per PUBLISH; the requests shrink as the fan-out grows, so that each cell
# delivers about two million messages.
PUBSUB_CHANNEL = "bench:chan"
PUBSUB_MESSAGE_BYTES = 64
PUBSUB_FANOUTS = ((0, 1), (10, 5), (100, 50))  # (subscribers, requests divided by)


def _pubsub_cells(requests, reps, fanouts=PUBSUB_FANOUTS):
    cells = []
    for subscribers, divisor in fanouts:
        count = max(requests // divisor, 1000)
        command = ["PUBLISH", PUBSUB_CHANNEL, "m" * PUBSUB_MESSAGE_BYTES]
        cells.append(Cell(f"PUBLISH-P16-s{subscribers}", "profile", ("PUBLISH", "SUBSCRIBE"),
                          {"test": "PUBLISH", "command": command, "pipeline": 16,
                           "size": PUBSUB_MESSAGE_BYTES, "random_keys": None,
                           "subscribers": subscribers, "requests": count,
                           "warmup": max(count // 10, 1000), "clients": CLIENTS}, reps))
    return cells


# Background saves (issue 16 item 2, bench/harness/snapshot.py): `keys` keys of 64 bytes saved by
# BGSAVE while idle (the save's speed), then while 50 connections SET random keys at pipeline 1
# (the memory of everything the server's processes hold meanwhile, and the load's latency during
# the save against the seconds before it), then loaded by a restart.
def _snapshot_cell(keys, label, reps, baseline_s=5, after_s=2, settle_s=3):
    return Cell(f"snap-BGSAVE-{label}", "snapshot", ("BGSAVE", "SET"),
                {"keys": keys, "value_bytes": 64, "clients": CLIENTS, "pipeline": 1,
                 "baseline_s": baseline_s, "after_s": after_s, "settle_s": settle_s}, reps)


def full_plan():
    return (_profile_cells(1_000_000, 1_000_000, 3) +
            _zset_cells(1_000_000, 1_000_000, 3) +
            _ycsb_cells(1_000_000, 1_000_000, 3) +
            [_memory_cell(1_000_000, "1M", 3, 30), _memory_cell(10_000_000, "10M", 3, 30),
             _list_memory_cell(1_000_000, "1M", 3, 30)] +
            [_set_memory_cell(1, 1_000_000, "1x1M", 3, 30),
             _set_memory_cell(100_000, 10, "100kx10", 3, 30)] +
            _hash_profile_cells(1_000_000, 1_000_000, 3) +
            [_hash_memory_cell(1, 1_000_000, "1x1M", 3, 30),
             _hash_memory_cell(100_000, 10, "100kx10", 3, 30),
             _zset_memory_cell(1_000_000, "1x1M", 3, 30)] +
            _callgrind_cells(200_000, 50_000, 3) +
            _bigreq_cells(100_000_000, 512 << 20, 3) +
            _churn_cells(1_000_000_000, 1000, 512 << 20, 3, 10) +
            _bits_cells(1_000_000, 20_000, 3) +
            _pubsub_cells(1_000_000, 3) +
            [_snapshot_cell(10_000_000, "10M", 3)] +
            [Cell("micro", "micro", (), {"repetitions": 3, "min_time_s": 0.5}, 1)])


def quick_plan():
    """Every group, scaled down: a smoke run of the instrument, not a measurement."""
    profile = [c for c in _profile_cells(50_000, 50_000, 1)
               if c.params["pipeline"] in (32, 1) and c.id.split("-")[0] in ("SET", "GET", "LPUSH")
               and c.params["size"] == 3]
    ycsb = [c for c in _ycsb_cells(20_000, 50_000, 1) if c.params["workload"] == "A"]
    return (profile + ycsb + [_memory_cell(100_000, "100k", 1, 3)] +
            [_set_memory_cell(1, 20_000, "1x20k", 1, 3), _set_memory_cell(2_000, 10, "2kx10", 1, 3)] +
            [c for c in _hash_profile_cells(50_000, 50_000, 1) if c.params["pipeline"] == 32] +
            [_hash_memory_cell(1, 20_000, "1x20k", 1, 3),
             _hash_memory_cell(2_000, 10, "2kx10", 1, 3)] +
            [_zset_memory_cell(20_000, "1x20k", 1, 3)] +
            [c for c in _callgrind_cells(5_000, 2_000, 1) if c.id == "cg-SET-P32-d3"] +
            _bigreq_cells(2_000_000, 8 << 20, 1) +
            _churn_cells(50_000_000, 1000, 8 << 20, 1, 3) +
            _bits_cells(20_000, 2_000, 1) +
            _pubsub_cells(50_000, 1, ((0, 1), (10, 5))) +
            [_snapshot_cell(200_000, "200k", 1, baseline_s=2, after_s=1, settle_s=1)] +
            [Cell("micro", "micro", (), {"repetitions": 1, "min_time_s": 0.01}, 1)])


def select(plan, patterns):
    """The cells whose id matches one of the comma-separated fnmatch patterns (all if None)."""
    if not patterns:
        return plan
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    chosen = [c for c in plan if any(fnmatch.fnmatchcase(c.id, p) for p in wanted)]
    if not chosen:
        raise SystemExit(f"--cells {patterns!r} matches no cell; see --list")
    return chosen
