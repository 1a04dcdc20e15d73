#!/usr/bin/env python3
"""Captures the write path's observable effects from redis-server for script.txt.

For every command of the script it records, in order:
  dirty N               how much rdb_changes_since_last_save grew (Redis's server.dirty)
  event C DB NAME KEY   a keyspace event (notify-keyspace-events), C its class letter
  aof ARGS...           a command the AOF received (propagation), redis-cli quoted

Engine tests replay the same script through Keel's engine and compare with the committed capture
(engine/db/write_path_conformance_test.cc), so the capture is the reference for the dirty counter,
the event names and classes, and the propagation rewrites. Times in propagated commands are
relative to the command's start: an integer within ten years of now is written {now_ms+D} or
{now_s+D}, D rounded to whole seconds (ms) so that a run's own latency does not show.

  capture.py [--redis-server PATH] [--out FILE]     writes the capture (default: expected.txt)
  capture.py --check                                captures again and fails on any difference
"""
import argparse
import glob
import os
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "diff"))
import casefile  # noqa: E402
import resp  # noqa: E402
import servers  # noqa: E402

# Redis 7.0's event classes (notify-keyspace-events letters) but 'd' (modules).
CLASSES = "g$lshzxetmn"
TEN_YEARS_MS = 10 * 365 * 86400 * 1000


def quote(arg):
    """redis-cli quoting of one argument, so that casefile.split_args reads it back."""
    text = arg.decode("latin-1")
    if text and all(c.isalnum() or c in "-_.:{}+*|@" for c in text):
        return text
    out = '"'
    for c in arg:
        ch = chr(c)
        if ch in '"\\':
            out += "\\" + ch
        elif 32 <= c < 127:
            out += ch
        else:
            out += "\\x%02x" % c
    return out + '"'


def normalise_time(arg, now_ms):
    """{now_ms+D} or {now_s+D} for an integer argument within ten years of now_ms."""
    try:
        value = int(arg)
    except ValueError:
        return quote(arg)
    if abs(value - now_ms) < TEN_YEARS_MS:
        return "{now_ms%+d}" % (round((value - now_ms) / 1000.0) * 1000)
    now_s = now_ms // 1000
    if abs(value - now_s) < TEN_YEARS_MS // 1000:
        return "{now_s%+d}" % (value - now_s)
    return quote(arg)


def read_script(path):
    steps = []
    with open(path) as script:
        for line in script:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("!sleep "):
                steps.append(("sleep", int(line.split()[1])))
            else:
                steps.append(("command", line))
    return steps


class Connection:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10.0)
        self.reader = resp.Reader(self.sock)

    def send(self, args):
        self.sock.sendall(resp.encode_command(args))

    def call(self, args):
        self.send(args)
        return resp.read_reply(self.reader)[1]

    def close(self):
        self.sock.close()


def dirty(conn):
    info = conn.call([b"INFO", b"persistence"]).data
    for line in info.split(b"\r\n"):
        if line.startswith(b"rdb_changes_since_last_save:"):
            return int(line.split(b":")[1])
    raise RuntimeError("no rdb_changes_since_last_save in INFO")


class AofTail:
    """The commands appended to the server's incremental AOF since the last call."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.offset = 0

    def take(self):
        files = glob.glob(os.path.join(self.workdir, "appendonlydir", "*.incr.aof"))
        if not files:
            return []
        with open(files[0], "rb") as aof:
            aof.seek(self.offset)
            data = aof.read()
        commands = []
        pos = 0
        while pos < len(data):
            # Every AOF record is a multibulk command.
            end = data.index(b"\r\n", pos)
            count = int(data[pos + 1:end])
            pos = end + 2
            args = []
            for _ in range(count):
                end = data.index(b"\r\n", pos)
                length = int(data[pos + 1:end])
                pos = end + 2
                args.append(data[pos:pos + length])
                pos += length + 2
            commands.append(args)
        self.offset += pos
        return commands


def run(redis_server, steps, event_flags, with_aof):
    """Runs the script on a fresh server; returns per command (dirty, events, aof commands)."""
    def make_args(port):
        return ["--port", str(port), "--save", "", "--appendonly", "yes" if with_aof else "no",
                "--appendfsync", "always", "--notify-keyspace-events", event_flags,
                "--enable-debug-command", "yes"]

    server = servers.ServerProcess(redis_server, make_args=make_args, name="redis-server")
    server.start()
    try:
        main = Connection(server.port)
        # INFO and the sentinel go on their own connection: inside MULTI the main one would
        # queue them.
        probe = Connection(server.port)
        events = Connection(server.port)
        events.send([b"PSUBSCRIBE", b"__keyevent@*__:*"])
        resp.read_reply(events.reader)
        events.send([b"SUBSCRIBE", b"capture-sentinel"])
        resp.read_reply(events.reader)
        main.call([b"DEBUG", b"SET-ACTIVE-EXPIRE", b"0"])
        aof = AofTail(server.workdir)
        aof.take()
        results = []
        sentinel = 0
        for kind, value in steps:
            if kind == "sleep":
                time.sleep(value / 1000.0)
                continue
            args = casefile.split_args(value)
            before = dirty(probe)
            now_ms = int(time.time() * 1000)
            main.call(args)
            changed = dirty(probe) - before
            sentinel += 1
            probe.call([b"PUBLISH", b"capture-sentinel", b"%d" % sentinel])
            seen = []
            while True:
                message = resp.read_reply(events.reader)[1].data
                if message[0].data == b"message":
                    if message[2].data == b"%d" % sentinel:
                        break
                    continue
                channel = message[2].data  # __keyevent@0__:set
                db = int(channel[len(b"__keyevent@"):channel.index(b"__:")])
                name = channel[channel.index(b"__:") + 3:]
                seen.append((db, name, message[3].data))
            propagated = [[normalise_time(arg, now_ms) for arg in command]
                          for command in aof.take()] if with_aof else []
            results.append((value, changed, seen, propagated))
        main.close()
        probe.close()
        events.close()
        return results
    finally:
        server.stop()
        server.cleanup()


def capture(redis_server, script_path):
    steps = read_script(script_path)
    full = run(redis_server, steps, "EAmn", with_aof=True)
    event_class = {}
    for letter in CLASSES:
        for _, _, seen, _ in run(redis_server, steps, "E" + letter, with_aof=False):
            for _, name, _ in seen:
                known = event_class.setdefault(name, letter)
                if known != letter:
                    raise RuntimeError("event %r in classes %s and %s" % (name, known, letter))
    lines = ["# Generated by conformance/writepath/capture.py from script.txt against "
             "redis-server; do not edit."]
    for command, changed, seen, propagated in full:
        lines.append("> " + command)
        lines.append("dirty %d" % changed)
        for db, name, key in seen:
            lines.append("event %s %d %s %s" % (event_class[name], db, name.decode(), quote(key)))
        for args in propagated:
            lines.append("aof " + " ".join(args))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--redis-server", default="redis-server")
    parser.add_argument("--script", default=os.path.join(HERE, "script.txt"))
    parser.add_argument("--out", default=os.path.join(HERE, "expected.txt"))
    parser.add_argument("--check", action="store_true")
    options = parser.parse_args()
    text = capture(options.redis_server, options.script)
    if options.check:
        with open(options.out) as committed:
            if committed.read() != text:
                sys.stderr.write("capture.py: %s differs from a new capture against %s; run "
                                 "conformance/writepath/capture.py\n"
                                 % (options.out, options.redis_server))
                return 1
        return 0
    with open(options.out, "w") as out:
        out.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
