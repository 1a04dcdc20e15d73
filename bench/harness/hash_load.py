"""Loads hashes for the hash cells: the memory cells' `hashes` hashes of `fields` fields each
(16-byte fields and 16-byte values, never integers), and the HGET cells' one hash whose fields
are the ones redis-benchmark's element:__rand_int__ names. Sent as pipelined HSETs of at most
1,000 pairs over one connection. Standard library only."""
import socket
import time

FIELD_BYTES = 16
VALUE_BYTES = 16
PAIRS_PER_COMMAND = 1000
PIPELINE = 64  # commands in flight


def _command(args):
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        out.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
    return b"".join(out)


def _field(hash_index, field_index):
    field = b"%07d:%08d" % (hash_index, field_index)
    assert len(field) == FIELD_BYTES
    return field


def _value(hash_index, field_index):
    value = b"v%06d:%08d" % (hash_index % 1_000_000, field_index)
    assert len(value) == VALUE_BYTES
    return value


def memory_commands(hashes, fields):
    for hash_index in range(hashes):
        key = b"hash:%07d" % hash_index
        for first in range(0, fields, PAIRS_PER_COMMAND):
            pairs = []
            for i in range(first, min(first + PAIRS_PER_COMMAND, fields)):
                pairs += [_field(hash_index, i), _value(hash_index, i)]
            yield _command([b"HSET", key] + pairs)


def benchmark_commands(random_fields, value_bytes):
    """HSET myhash with what HGET myhash element:__rand_int__ reads: the literal field when
    `random_fields` is 0, else element:000000000000 .. element:<random_fields - 1>, 12 digits."""
    value = b"x" * value_bytes
    if not random_fields:
        yield _command([b"HSET", b"myhash", b"element:__rand_int__", value])
        return
    for first in range(0, random_fields, PAIRS_PER_COMMAND):
        pairs = []
        for i in range(first, min(first + PAIRS_PER_COMMAND, random_fields)):
            pairs += [b"element:%012d" % i, value]
        yield _command([b"HSET", b"myhash"] + pairs)


def send(port, commands):
    """Sends every command and waits for every reply; returns the wall seconds it took. Raises on
    an error reply (a '-' line)."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        pending = 0
        buffer = b""

        def drain(down_to):
            nonlocal pending, buffer
            while pending > down_to:
                chunk = sock.recv(1 << 16)
                if not chunk:
                    raise RuntimeError("the server closed the connection")
                buffer += chunk
                lines = buffer.split(b"\r\n")
                buffer = lines.pop()
                for line in lines:
                    if line.startswith(b"-"):
                        raise RuntimeError("HSET failed: " + line.decode("latin-1"))
                    pending -= 1

        for command in commands:
            sock.sendall(command)
            pending += 1
            if pending >= PIPELINE:
                drain(PIPELINE // 2)
        drain(0)
    return time.monotonic() - start
