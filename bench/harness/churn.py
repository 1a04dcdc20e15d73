"""The data of the churn cells (docs/BENCHMARKING.md): memory written and then freed, to see how
much of it the server gives back to the system. Standard library only.

  fill(port, keys, value_bytes)   MSETs `keys` keys (key:<12 digits>) of `value_bytes` each
  set_big(port, value_bytes)      one SET of a value that large to the key "big"
  read_big(port)                  GETs it back, streaming; returns the value's length
"""
import socket
import time

import hash_load

PAIRS_PER_COMMAND = 100
BIG_KEY = b"big"
CHUNK_BYTES = 1 << 20


def fill_commands(keys, value_bytes):
    value = b"v" * value_bytes
    for first in range(0, keys, PAIRS_PER_COMMAND):
        args = [b"MSET"]
        for i in range(first, min(first + PAIRS_PER_COMMAND, keys)):
            args += [b"key:%012d" % i, value]
        yield hash_load._command(args)


def fill(port, keys, value_bytes):
    """Wall seconds the load took; raises on an error reply."""
    return hash_load.send(port, fill_commands(keys, value_bytes))


def set_big(port, value_bytes):
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=600) as sock:
        sock.sendall(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n" % (
            len(BIG_KEY), BIG_KEY, value_bytes))
        chunk = b"x" * CHUNK_BYTES
        left = value_bytes
        while left > 0:
            sock.sendall(chunk[:min(left, CHUNK_BYTES)])
            left -= min(left, CHUNK_BYTES)
        sock.sendall(b"\r\n")
        reply = sock.recv(64)
        if reply != b"+OK\r\n":
            raise RuntimeError(f"SET big answered {reply!r}")
    return time.monotonic() - start


def read_big(port):
    """GET big, reading the reply without keeping it; the value's length."""
    with socket.create_connection(("127.0.0.1", port), timeout=600) as sock:
        sock.sendall(b"*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n" % (len(BIG_KEY), BIG_KEY))
        header = b""
        while b"\r\n" not in header:
            data = sock.recv(64)
            if not data:
                raise RuntimeError("the server closed the connection")
            header += data
        line, rest = header.split(b"\r\n", 1)
        if not line.startswith(b"$"):
            raise RuntimeError(f"GET big answered {line!r}")
        length = int(line[1:])
        left = length + 2 - len(rest)
        while left > 0:
            data = sock.recv(min(left, CHUNK_BYTES))
            if not data:
                raise RuntimeError("the server closed the connection mid-value")
            left -= len(data)
        return length
