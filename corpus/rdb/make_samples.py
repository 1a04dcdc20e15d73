#!/usr/bin/env python3
"""Makes the RDB samples of corpus/rdb/ with the reference redis-server (7.0).

For each sample it starts a fresh
    redis-server --port P --save '' --appendonly no --dir TMP --dbfilename x.rdb
                 --enable-debug-command yes [the sample's options]
on a free loopback port, fills it over raw RESP, checks that every key has the encoding the
sample is about (OBJECT ENCODING, PFDEBUG ENCODING), runs SAVE, and writes into this directory:
    NAME.rdb     the file SAVE wrote
    NAME.digest  DEBUG DIGEST of the dataset (one line, 40 hex digits)
    NAME.txt     every key: db, key, type, OBJECT ENCODING, whether it has a TTL
Each written file is checked with redis-check-rdb. The content is deterministic (no randomness:
the "random" bytes come from a SHA-256 chain); only the RDB's aux fields (ctime, used-mem) and the
order of hashtable-encoded sets and hashes differ between runs. Expiry times are absolute, far in
the future (PEXPIREAT 4102444800000 = 2100-01-01), so the samples do not expire.

conformance/e2e/test_rdb_interop.py loads every NAME.rdb into keel-server and compares the digest
and the per-db key counts (from NAME.txt).

Usage: make_samples.py [--redis-server PATH] [--only NAME ...]
Python 3 standard library only.
"""
import argparse
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FAR_FUTURE_MS = 4102444800000  # 2100-01-01T00:00:00Z
READY_TIMEOUT_S = 30.0


# ----------------------------------------------------------------------------------------------
# A minimal RESP2 client


class RedisError(Exception):
    pass


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60.0)
        self.file = self.sock.makefile("rb")

    def close(self):
        self.file.close()
        self.sock.close()

    def send(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for arg in args:
            data = arg if isinstance(arg, bytes) else str(arg).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(data), data))
        self.sock.sendall(b"".join(out))

    def read(self):
        line = self.file.readline()
        if not line:
            raise RedisError("connection closed")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RedisError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self.file.read(n + 2)[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise RedisError("unexpected reply %r" % line)

    def __call__(self, *args):
        self.send(*args)
        return self.read()

    def pipeline(self, commands):
        """Sends many commands, then reads their replies (raises on the first error)."""
        for args in commands:
            self.send(*args)
        return [self.read() for _ in commands]


# ----------------------------------------------------------------------------------------------
# Helpers for the fillers


def incompressible(seed, size):
    """`size` bytes of a SHA-256 chain: deterministic, and LZF cannot shrink them."""
    out = b""
    block = seed.encode() if isinstance(seed, str) else seed
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block
    return out[:size]


def expire_far(c, key, offset_ms=0):
    assert c("PEXPIREAT", key, FAR_FUTURE_MS + offset_ms) == 1, key


def expect_encoding(c, key, encoding):
    actual = c("OBJECT", "ENCODING", key).decode()
    if actual != encoding:
        raise RuntimeError("key %r: OBJECT ENCODING %s, the sample wants %s" %
                           (key, actual, encoding))


def in_batches(c, command, key, items, batch=500):
    for i in range(0, len(items), batch):
        c(command, key, *items[i:i + batch])


# ----------------------------------------------------------------------------------------------
# The samples' data


def fill_strings(c):
    c("SELECT", 0)
    plain = {
        "str:short": "hello",
        "str:one_char": "x",
        "str:embstr_44": "e" * 44,     # embstr's limit (45 bytes and more: raw)
        "str:raw_45": incompressible("raw45", 45),
        "str:utf8": "h\u00e9llo w\u00f6rld \u2713",
        "str:empty": "",
        "str:binary": b"\x00\r\n\xff\x00 bin \r\n\x01\x7f\x80\x00",
        "str:crlf_only": b"\r\n",
        "str:nul_only": b"\x00",
        b"bin:key\x00\r\n\xff": "a binary key",
        "str:len_20": "b" * 20,        # RDB never compresses strings of 20 bytes or less
        "str:len_21": "b" * 21,        # compressible: LZF
        "lzf:a200": "a" * 200,
        "lzf:text": "Keel is a Redis-compatible in-memory store. " * 40,
        "lzf:big": ("0123456789" * 7 + "\n") * 1500,
        "rand:300": incompressible("rand300", 300),
        "rand:5000": incompressible("rand5000", 5000),
        # Look like integers but are not canonical: stored as strings.
        "notint:leading_zero": "007",
        "notint:plus": "+5",
        "notint:space": " 5",
        "notint:exp": "1e3",
        "notint:minus_zero": "-0",
        "notint:over_int64": "9223372036854775808",
        "notint:float": "3.14",
    }
    ints = {
        "int:12345": "12345",
        "int:-7": "-7",
        "int:0": "0",
        "int:shared_1": "1",
        "int:127": "127",                    # RDB int8
        "int:-128": "-128",
        "int:128": "128",                    # int16
        "int:-129": "-129",
        "int:32767": "32767",
        "int:32768": "32768",                # int32
        "int:2147483647": "2147483647",
        "int:-2147483648": "-2147483648",
        "int:2147483648": "2147483648",      # beyond int32: a string in the RDB, int in memory
        "int:max_int64": "9223372036854775807",
        "int:min_int64": "-9223372036854775808",
        "int:big_positive": "10000000000",
    }
    for key, value in list(plain.items()) + list(ints.items()):
        assert c("SET", key, value) == "OK"
    for key in ints:
        expect_encoding(c, key, "int")
    expect_encoding(c, "str:short", "embstr")
    expect_encoding(c, "str:embstr_44", "embstr")
    expect_encoding(c, "str:raw_45", "raw")
    expect_encoding(c, "lzf:a200", "raw")
    # Keys with an expiry in the far future.
    c("SET", "ttl:str", "expires in 2100")
    expire_far(c, "ttl:str")
    c("SET", "ttl:int", "42")
    expire_far(c, "ttl:int", 123)
    c("SET", "ttl:lzf", "z" * 300)
    expire_far(c, "ttl:lzf", 1)
    c("SET", "ttl:empty", "")
    expire_far(c, "ttl:empty", 2)
    # Other databases.
    c("SELECT", 1)
    c("SET", "db1:str", "in db 1")
    c("SET", "db1:int", "1001")
    c("SET", "db1:lzf", "q" * 500)
    c("SET", "ttl:db1", "volatile in db 1")
    expire_far(c, "ttl:db1", 1000)
    c("SET", "str:short", "same key name as in db 0, another value")
    c("SELECT", 15)
    c("SET", "db15:str", "in db 15")
    c("SET", "db15:int", "-15")
    c("SET", "ttl:db15", "volatile in db 15")
    expire_far(c, "ttl:db15", 15)
    c("SELECT", 0)


def fill_lists(c):
    c("RPUSH", "list:small", "a", "b", "c")
    c("RPUSH", "list:one", "x")
    c("RPUSH", "list:with_empty", "", "not empty", "")
    ints = [0, 1, -1, 12, 127, 128, -128, -129, 4095, 4096, -4096, 32767, 32768, 8388607,
            8388608, 2 ** 31 - 1, 2 ** 31, -2 ** 31, 2 ** 40, 2 ** 63 - 1, -2 ** 63]
    c("RPUSH", "list:ints", *ints)      # every listpack integer width
    c("RPUSH", "list:mixed", "text", 42, b"\x00\r\n", "3.5", -7, "x" * 100)
    c("RPUSH", "list:binary", b"\x00", b"\r\n", b"\xff\xfe", b"a\x00b")
    big = ["item:%d" % i for i in range(5000)]
    in_batches(c, "RPUSH", "list:big", big)                          # many 8 KB nodes
    in_batches(c, "RPUSH", "list:big_ints", list(range(-2500, 2500)))
    # Elements larger than list-max-listpack-size's 8 KB: each in a packed node of its own.
    c("RPUSH", "list:big_element", "head", "e" * 10000, "tail", incompressible("bigel", 9000))
    c("RPUSH", "list:only_big_element", "g" * 20000)
    # Plain nodes (container 1, one raw element each): Redis makes them for elements of 1 GB and
    # more by default; a lower threshold makes them small.
    c("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1000")
    c("RPUSH", "list:plain_nodes", "head", "p" * 3000, "middle", incompressible("plain", 1500),
      "tail")
    c("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0")  # the default again
    c("LPUSH", "list:lpushed", *["l%d" % i for i in range(100)])
    # Nodes LZF-compressed in memory (list-compress-depth 1): the RDB holds them as LZF blobs.
    c("CONFIG", "SET", "list-compress-depth", "1")
    in_batches(c, "RPUSH", "list:compressed_nodes",
               ["compressed element %d" % i for i in range(3000)])
    c("CONFIG", "SET", "list-compress-depth", "0")
    if "ql_compressed:1" not in c("DEBUG", "OBJECT", "list:compressed_nodes"):
        raise RuntimeError("list:compressed_nodes has no compressed node")
    plain = c("DEBUG", "OBJECT", "list:plain_nodes")
    if "ql_nodes:5 " not in plain:  # head, plain, middle, plain, tail
        raise RuntimeError("list:plain_nodes: not 5 nodes: " + plain)
    c("RPUSH", "list:ttl", "volatile", "list")
    expire_far(c, "list:ttl")
    for key in c("KEYS", "list:*"):
        expect_encoding(c, key, "quicklist")
    c("SELECT", 3)
    c("RPUSH", "list:db3", "in", "db", "3", 3)
    c("SELECT", 0)


def fill_sets(c):
    c("SADD", "set:intset", 1, 2, 3, -5, 100)
    c("SADD", "set:intset16", 300, -300, 1)
    c("SADD", "set:intset32", 70000, -70000)
    c("SADD", "set:intset64", 2 ** 40, -2 ** 62, 1, 2 ** 63 - 1, -2 ** 63)
    c("SADD", "set:intset_one", 7)
    in_batches(c, "SADD", "set:intset_512", [i * 3 - 700 for i in range(512)])  # the limit
    in_batches(c, "SADD", "set:ints_513", list(range(513)))          # one past: hashtable
    c("SADD", "set:strings", "a", "b", "c", "hello")
    c("SADD", "set:one_string", "x")
    c("SADD", "set:mixed", 1, "a", 2, "b", "3.5")
    c("SADD", "set:binary", b"\x00", b"\r\n", b"\xff", "")
    c("SADD", "set:long_member", "m" * 100, "short")
    in_batches(c, "SADD", "set:strings_1000", ["member:%04d" % i for i in range(1000)])
    c("SADD", "set:ttl_intset", 1, 2, 3)
    expire_far(c, "set:ttl_intset")
    c("SADD", "set:ttl_strings", "p", "q")
    expire_far(c, "set:ttl_strings", 5)
    for key in ("set:intset", "set:intset16", "set:intset32", "set:intset64", "set:intset_one",
                "set:intset_512", "set:ttl_intset"):
        expect_encoding(c, key, "intset")
    for key in ("set:ints_513", "set:strings", "set:one_string", "set:mixed", "set:binary",
                "set:long_member", "set:strings_1000", "set:ttl_strings"):
        expect_encoding(c, key, "hashtable")
    c("SELECT", 2)
    c("SADD", "set:db2", 10, 20)
    c("SADD", "set:db2_strings", "x", "y")
    c("SELECT", 0)


def fill_hashes(c):
    c("HSET", "hash:small", "f1", "v1", "f2", "v2", "num", 123, "neg", -5, "empty", "",
      "big_int", 2 ** 63 - 1)
    c("HSET", "hash:one", "field", "value")
    c("HSET", "hash:binary", b"\x00f", b"\r\nv", b"f\xff", b"\x00")
    c("HSET", "hash:int_fields", 1, "one", 2, "two", -3, "minus three")
    # At the limits (hash-max-listpack-entries 512, hash-max-listpack-value 64): still listpack.
    c("HSET", "hash:512_fields", *[x for i in range(512) for x in ("f%03d" % i, i)])
    c("HSET", "hash:64_byte_values", *[x for i in range(20) for x in ("f%d" % i, "v" * 64)])
    # Past them: hashtable.
    c("HSET", "hash:513_fields", *[x for i in range(513) for x in ("f%03d" % i, i)])
    c("HSET", "hash:big", *[x for i in range(1000) for x in ("field:%d" % i, "value:%d" % i)])
    c("HSET", "hash:long_value", "short", "s", "long", "L" * 65)
    c("HSET", "hash:long_field", "F" * 100, "v")
    c("HSET", "hash:incompressible_value", "k", incompressible("hashval", 1000))
    c("HSET", "hash:ttl_listpack", "a", 1)
    expire_far(c, "hash:ttl_listpack")
    c("HSET", "hash:ttl_hashtable", "a", "x" * 100)
    expire_far(c, "hash:ttl_hashtable", 9)
    for key in ("hash:small", "hash:one", "hash:binary", "hash:int_fields", "hash:512_fields",
                "hash:64_byte_values", "hash:ttl_listpack"):
        expect_encoding(c, key, "listpack")
    for key in ("hash:513_fields", "hash:big", "hash:long_value", "hash:long_field",
                "hash:incompressible_value", "hash:ttl_hashtable"):
        expect_encoding(c, key, "hashtable")
    c("SELECT", 4)
    c("HSET", "hash:db4", "in", "db4")
    c("SELECT", 0)


SPECIAL_SCORES = [("zero", 0), ("one", 1), ("neg", -3), ("neg_frac", -2.25),
                  ("one_and_half", 1.5), ("tenth", 0.1), ("third", 1.0 / 3),
                  ("pi", "3.141592653589793"), ("inf", "inf"), ("minus_inf", "-inf"),
                  ("big", "1e100"), ("tiny", "5e-324"), ("two53", 2 ** 53),
                  ("two53p1", 2 ** 53 + 1), ("neg_big", "-1.7976931348623157e308"),
                  ("int_score", 1000000)]


def zadd_args(pairs):
    return [x for member, score in pairs for x in (repr(score) if isinstance(score, float)
                                                   else score, member)]


def fill_zsets(c):
    c("ZADD", "zset:small", 1, "a", 2, "b", 3, "c")
    c("ZADD", "zset:one", 0, "only")
    c("ZADD", "zset:special_scores", *zadd_args(SPECIAL_SCORES))
    c("ZADD", "zset:same_score", *[x for m in "abcdefg" for x in (5, m)])
    c("ZADD", "zset:binary", 1, b"\x00", 2, b"\r\n", 3, b"\xff", 4, "")
    c("ZADD", "zset:int_members", 1, 100, 2, -100, 3, 2 ** 40)
    c("ZADD", "zset:at_limit", *[x for i in range(128) for x in (i, "m" * 60 + "%04d" % i)])
    # skiplist: 200 members, then the same special scores; a long member; 129 members.
    c("ZADD", "zset:skiplist", *[x for i in range(200) for x in (i * 0.5 - 50, "member:%d" % i)])
    c("ZADD", "zset:skiplist", *zadd_args(SPECIAL_SCORES))
    c("ZADD", "zset:long_member", 1, "M" * 65, 2, "short")
    c("ZADD", "zset:129_members", *[x for i in range(129) for x in (i % 10, "m%d" % i)])
    c("ZADD", "zset:ttl_listpack", 1.5, "x")
    expire_far(c, "zset:ttl_listpack")
    c("ZADD", "zset:ttl_skiplist", *[x for i in range(150) for x in (-i, "t%d" % i)])
    expire_far(c, "zset:ttl_skiplist", 77)
    for key in ("zset:small", "zset:one", "zset:special_scores", "zset:same_score",
                "zset:binary", "zset:int_members", "zset:at_limit", "zset:ttl_listpack"):
        expect_encoding(c, key, "listpack")
    for key in ("zset:skiplist", "zset:long_member", "zset:129_members", "zset:ttl_skiplist"):
        expect_encoding(c, key, "skiplist")
    c("SELECT", 5)
    c("ZADD", "zset:db5", "-inf", "low", "inf", "high")
    c("SELECT", 0)


def expect_hll(c, key, encoding):
    actual = c("PFDEBUG", "ENCODING", key)  # a status reply
    if actual != encoding:
        raise RuntimeError("key %r: PFDEBUG ENCODING %s, the sample wants %s" %
                           (key, actual, encoding))


def fill_bitmaps_hll(c):
    c("SETBIT", "bits:small", 7, 1)
    c("SETBIT", "bits:small", 100, 1)
    c("SETBIT", "bits:one_bit", 0, 1)
    c("SETBIT", "bits:zero_bit", 0, 0)           # a one-byte string "\0"
    c("SETBIT", "bits:far", 100000, 1)           # 12.5 KB, mostly zeros: LZF
    for bit in range(0, 4096, 3):
        c("SETBIT", "bits:pattern", bit, 1)
    c("BITFIELD", "bf:mixed", "SET", "u8", 0, 255, "SET", "i16", 8, -1234, "SET", "u32", 24,
      123456789, "SET", "i64", 56, -(2 ** 62), "SET", "u1", 200, 1)
    c("BITFIELD", "bf:counter", "INCRBY", "u4", "#0", 9, "INCRBY", "u4", "#1", 3,
      "OVERFLOW", "SAT", "INCRBY", "i8", "#2", 200)
    c("BITFIELD", "bf:high_offset", "SET", "u16", 65536, 4660)
    c("SET", "bits:string_then_setbit", "abc")
    c("SETBIT", "bits:string_then_setbit", 30, 1)
    c("PFADD", "hll:empty")
    c("PFADD", "hll:sparse", "a", "b", "c")
    in_batches(c, "PFADD", "hll:sparse_100", ["e:%d" % i for i in range(100)])
    in_batches(c, "PFADD", "hll:dense", ["element:%d" % i for i in range(20000)])
    in_batches(c, "PFADD", "hll:counted", ["c:%d" % i for i in range(300)])
    c("PFCOUNT", "hll:counted")                  # a valid cached cardinality in the header
    c("PFADD", "hll:ttl", "x", "y")
    expire_far(c, "hll:ttl")
    for key in ("hll:empty", "hll:sparse", "hll:sparse_100", "hll:counted", "hll:ttl"):
        expect_hll(c, key, "sparse")
    expect_hll(c, "hll:dense", "dense")


def fill_mixed_expiry(c):
    offset = 0

    def ttl(key):
        nonlocal offset
        offset += 1000
        expire_far(c, key, offset)

    for db in (0, 6, 9):
        c("SELECT", db)
        p = "db%d:" % db
        c("SET", p + "string", "volatile string")
        ttl(p + "string")
        c("SET", p + "int", 99)
        ttl(p + "int")
        c("SET", p + "lzf", "w" * 400)
        ttl(p + "lzf")
        c("SET", p + "persistent", "no ttl")
        c("RPUSH", p + "list", "a", 1, "b")
        ttl(p + "list")
        in_batches(c, "RPUSH", p + "list_big", ["n%d" % i for i in range(2000)])
        ttl(p + "list_big")
        c("SADD", p + "set_intset", 1, 2, 3)
        ttl(p + "set_intset")
        c("SADD", p + "set_hashtable", "a", "b")
        ttl(p + "set_hashtable")
        c("HSET", p + "hash_listpack", "f", "v")
        ttl(p + "hash_listpack")
        c("HSET", p + "hash_hashtable", "f", "v" * 80)
        ttl(p + "hash_hashtable")
        c("ZADD", p + "zset_listpack", 1, "a", "-inf", "b")
        ttl(p + "zset_listpack")
        c("ZADD", p + "zset_skiplist", *[x for i in range(130) for x in (i / 4, "z%d" % i)])
        ttl(p + "zset_skiplist")
        c("PFADD", p + "hll", "h1", "h2")
        ttl(p + "hll")
        c("SETBIT", p + "bitmap", 33, 1)
        ttl(p + "bitmap")
        c("HSET", p + "hash_persistent", "f", "v")
        c("ZADD", p + "zset_persistent", 1, "a")
    c("SELECT", 12)
    c("SET", "db12:only_volatile", "x")
    ttl("db12:only_volatile")
    c("SELECT", 0)


def fill_nochecksum(c):
    c("SET", "str", "no checksum")
    c("SET", "int", 12345)
    c("RPUSH", "list", "a", "b")
    c("SADD", "set", 1, 2)
    c("HSET", "hash", "f", "v")
    c("ZADD", "zset", 1.5, "m")
    c("SET", "ttl", "volatile")
    expire_far(c, "ttl")


def fill_nothing(c):
    pass


# name, extra redis-server options, filler, what it holds (for README.md)
SAMPLES = [
    ("strings", [], fill_strings, "strings: embstr/raw, int encodings (int8/16/32 and wider), "
     "LZF-compressible and incompressible, binary, empty, binary key, expiry; dbs 0, 1, 15"),
    ("strings_nocompress", ["--rdbcompression", "no"], fill_strings,
     "the same data as strings.rdb, saved with rdbcompression no (no LZF strings)"),
    ("lists", [], fill_lists, "quicklists: small, every listpack integer width, 5000 elements "
     "(many nodes), elements > 8 KB, plain nodes, LZF-compressed nodes (list-compress-depth 1)"),
    ("sets", [], fill_sets, "intsets (16/32/64-bit, 512 members), hashtable sets "
     "(513 integers, strings, 1000 strings, binary)"),
    ("hashes", [], fill_hashes, "listpack hashes (up to 512 fields, values of 64 bytes), "
     "hashtable hashes (513 and 1000 fields, a value of 65 bytes, a field of 100 bytes)"),
    ("zsets", [], fill_zsets, "listpack and skiplist zsets; scores inf, -inf, 0, negative, 0.1, "
     "1.5, 1/3, 5e-324, 1e100, 2^53+1"),
    ("bitmaps_hll", [], fill_bitmaps_hll, "SETBIT and BITFIELD strings; HyperLogLogs empty, "
     "sparse, with a cached count, dense (20000 elements)"),
    ("mixed_expiry", [], fill_mixed_expiry, "every type and encoding with an expiry "
     "(far future), and persistent keys; dbs 0, 6, 9, 12"),
    ("empty", [], fill_nothing, "an empty dataset"),
    ("nochecksum", ["--rdbchecksum", "no"], fill_nochecksum,
     "a few keys of every type, saved with rdbchecksum no (the checksum is 8 zero bytes)"),
]


# ----------------------------------------------------------------------------------------------
# Running redis-server


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Redis:
    def __init__(self, binary, workdir, extra):
        self.workdir = workdir
        self.port = free_port()
        self.log_path = os.path.join(workdir, "redis.log")
        self.argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                     "--appendonly", "no", "--dir", workdir, "--dbfilename", "x.rdb",
                     "--enable-debug-command", "yes"] + extra
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(self.argv, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, cwd=workdir)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                raise RuntimeError("redis-server exited with %s:\n%s" %
                                   (self.process.returncode, self.log()))
            try:
                self.client = Client(self.port)
                if self.client("PING") == "PONG":
                    break
            except (OSError, RedisError):
                pass
            if time.monotonic() > deadline:
                self.process.kill()
                raise RuntimeError("redis-server not ready:\n" + self.log())
            time.sleep(0.05)

    def log(self):
        with open(self.log_path, "rb") as log:
            return log.read().decode(errors="replace")

    def stop(self):
        try:
            self.client.send("SHUTDOWN", "NOSAVE")
            self.client.read()
        except (OSError, RedisError):
            pass
        self.client.close()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def escape(data):
    """A key as one printable field: printable ASCII as is, `\\` doubled, the rest \\xNN."""
    out = []
    for byte in data:
        if byte == 0x5C:
            out.append("\\\\")
        elif 0x21 <= byte <= 0x7E:
            out.append(chr(byte))
        else:
            out.append("\\x%02x" % byte)
    return "".join(out)


def listing(c):
    """Lines "db<TAB>key<TAB>type<TAB>encoding<TAB>ttl|-" of every key, by db, then key."""
    lines = []
    for db in range(16):
        c("SELECT", db)
        keys = []
        cursor = b"0"
        while True:
            cursor, batch = c("SCAN", cursor, "COUNT", 1000)
            keys.extend(batch)
            if cursor == b"0":
                break
        for key in sorted(set(keys)):
            kind = c("TYPE", key)
            encoding = c("OBJECT", "ENCODING", key).decode()
            pttl = c("PTTL", key)
            lines.append("%d\t%s\t%s\t%s\t%s" % (db, escape(key), kind, encoding,
                                                  "ttl" if pttl > 0 else "-"))
    c("SELECT", 0)
    return lines


def make_sample(binary, name, extra, fill):
    workdir = tempfile.mkdtemp(prefix="keel-rdb-sample-")
    try:
        redis = Redis(binary, workdir, extra)
        try:
            c = redis.client
            fill(c)
            digest = c("DEBUG", "DIGEST")
            lines = listing(c)
            if c("SAVE") != "OK":
                raise RuntimeError("SAVE failed")
            if c("DEBUG", "DIGEST") != digest:
                raise RuntimeError("the digest changed across SAVE")
            version = c("INFO", "server").decode().split("redis_version:")[1].split()[0]
        finally:
            redis.stop()
        rdb = os.path.join(HERE, name + ".rdb")
        shutil.copyfile(os.path.join(workdir, "x.rdb"), rdb)
        with open(os.path.join(HERE, name + ".digest"), "w") as out:
            out.write(digest + "\n")
        with open(os.path.join(HERE, name + ".txt"), "w") as out:
            out.write("# %s.rdb: made by make_samples.py with redis-server %s (options: %s)\n"
                      % (name, version, " ".join(extra) or "none"))
            out.write("# DEBUG DIGEST %s; %d keys\n" % (digest, len(lines)))
            out.write("# db<TAB>key (\\xNN escapes)<TAB>type<TAB>OBJECT ENCODING<TAB>"
                      "ttl (has an expiry) or -\n")
            for line in lines:
                out.write(line + "\n")
        check = subprocess.run([shutil.which("redis-check-rdb") or "redis-check-rdb", rdb],
                               capture_output=True, text=True)
        if check.returncode != 0 or "RDB looks OK" not in check.stdout:
            raise RuntimeError("redis-check-rdb %s failed:\n%s%s" % (rdb, check.stdout,
                                                                     check.stderr))
        print("%-22s %7d bytes  %4d keys  digest %s" % (name + ".rdb", os.path.getsize(rdb),
                                                       len(lines), digest))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis-server", default=shutil.which("redis-server") or
                        "/usr/bin/redis-server")
    parser.add_argument("--only", nargs="*", help="make only these samples")
    options = parser.parse_args()
    for name, extra, fill, _ in SAMPLES:
        if options.only and name not in options.only:
            continue
        make_sample(options.redis_server, name, extra, fill)
    return 0


if __name__ == "__main__":
    sys.exit(main())
