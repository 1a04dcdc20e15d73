"""Loads sets for the set memory cells: `sets` sets of `members` members each, 16-byte members
(never integers, so both engines hold hashtables), sent as pipelined SADDs of at most 1,000
members over one connection; or one sorted set (ZADD, member i scored i) for the sorted-set
memory cell. Standard library only."""
import socket
import time

MEMBER_BYTES = 16
MEMBERS_PER_COMMAND = 1000
PIPELINE = 64  # commands in flight
ZSET_KEY = b"zset:0000000"


def _command(args):
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        out.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
    return b"".join(out)


def _member(set_index, member_index):
    member = b"%07d:%08d" % (set_index, member_index)
    assert len(member) == MEMBER_BYTES
    return member


def zset_commands(members):
    for first in range(0, members, MEMBERS_PER_COMMAND):
        args = [b"ZADD", ZSET_KEY]
        for i in range(first, min(first + MEMBERS_PER_COMMAND, members)):
            args += [b"%d" % i, _member(0, i)]
        yield _command(args)


def commands(sets, members):
    for set_index in range(sets):
        key = b"set:%07d" % set_index
        for first in range(0, members, MEMBERS_PER_COMMAND):
            last = min(first + MEMBERS_PER_COMMAND, members)
            yield _command([b"SADD", key] + [_member(set_index, i) for i in range(first, last)])


def load(port, sets, members, sorted_set=False):
    """Sends every SADD and waits for every reply; returns the wall seconds it took. Raises on
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
                        raise RuntimeError("load failed: " + line.decode("latin-1"))
                    pending -= 1

        for command in zset_commands(members) if sorted_set else commands(sets, members):
            sock.sendall(command)
            pending += 1
            if pending >= PIPELINE:
                drain(PIPELINE // 2)
        drain(0)
    return time.monotonic() - start
