#!/usr/bin/env python3
"""Makes the HyperLogLogs of corpus/hll/ with redis-server: each is built with PFADD (and
PFMERGE, PFDEBUG TODENSE or a smaller hll-sparse-max-bytes where named), then DUMPed to
<name>.dump, and PFCOUNT's answer recorded in expected.txt ("<name> <count> <encoding>").
engine/commands/cmd_hyperloglog_test.cc RESTOREs every file into Keel and checks the count.

Usage: make.py PORT   (a redis-server 7.0 listening on 127.0.0.1:PORT, which it flushes)
"""
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def command(sock, *args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    sock.sendall(out)
    return read(sock.makefile("rb"))


def read(f):
    line = f.readline()
    kind, rest = line[:1], line[1:-2]
    if kind in (b"+", b":"):
        return rest
    if kind == b"-":
        raise RuntimeError(rest)
    if kind == b"$":
        n = int(rest)
        return None if n < 0 else f.read(n + 2)[:-2]
    raise RuntimeError("unexpected reply %r" % line)


def elements(prefix, count):
    return ["%s:%d" % (prefix, i) for i in range(count)]


def add(sock, key, items):
    for i in range(0, len(items), 500):
        command(sock, "PFADD", key, *items[i:i + 500])


def main():
    sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    command(sock, "FLUSHALL")
    command(sock, "CONFIG", "SET", "hll-sparse-max-bytes", "3000")
    plans = []
    for n in (0, 1, 2, 10, 100, 300, 1000, 3000, 10000, 100000):
        add(sock, "n%d" % n, elements("e", n)) if n else command(sock, "PFADD", "n0")
        plans.append("n%d" % n)
    # The cache: counted once (valid), or not counted (invalid), for the same elements.
    add(sock, "cached", elements("c", 500))
    command(sock, "PFCOUNT", "cached")
    plans.append("cached")
    add(sock, "todense", elements("t", 50))
    command(sock, "PFDEBUG", "TODENSE", "todense")
    plans.append("todense")
    add(sock, "merged_a", elements("m", 2000))
    add(sock, "merged_b", elements("m", 1500) + elements("x", 700))
    command(sock, "PFMERGE", "merged", "merged_a", "merged_b")
    plans.append("merged")
    command(sock, "CONFIG", "SET", "hll-sparse-max-bytes", "12000")
    add(sock, "bigsparse", elements("s", 4000))
    plans.append("bigsparse")
    command(sock, "CONFIG", "SET", "hll-sparse-max-bytes", "3000")
    binary = [bytes([i, 255 - i, i ^ 0x5a]) * (i % 7 + 1) for i in range(256)]
    add(sock, "binary", binary)
    plans.append("binary")
    with open(os.path.join(HERE, "expected.txt"), "w") as manifest:
        manifest.write("# name pfcount encoding (from redis-server 7.0's PFCOUNT, made by make.py)\n")
        for key in plans:
            payload = command(sock, "DUMP", key)
            encoding = command(sock, "PFDEBUG", "ENCODING", key).decode()
            count = int(command(sock, "PFCOUNT", key))
            with open(os.path.join(HERE, key + ".dump"), "wb") as out:
                out.write(payload)
            manifest.write("%s %d %s\n" % (key, count, encoding))


if __name__ == "__main__":
    main()
