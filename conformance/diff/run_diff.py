#!/usr/bin/env python3
"""Differential runner: sends the same commands to redis-server and keel-server and compares the
reply bytes.

    run_diff.py --keel build/asan/io/keel-server [--redis redis-server] [--keep-going]
                [CASE_FILE_OR_DIR ...]   (default: conformance/cases)

Both servers start on free loopback ports with `--port P --save '' --appendonly no`. Each case
file runs twice, on fresh connections to both servers: over RESP2, then after HELLO 3 over RESP3
(the HELLO 3 reply is compared too). Before a file runs, FLUSHALL empties both keyspaces. A reply
is compared byte for byte unless normalise.py names its command; the first difference of each file
and protocol is printed with both replies. Exit status: 0 when every reply matched, 1 on any
difference (or when keel-server did not exit cleanly, as under a sanitizer report), 2 on a setup
error, 77 when redis-server is not installed (ctest reports the test as skipped).
"""

import argparse
import difflib
import os
import re
import select
import shutil
import socket
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import casefile  # noqa: E402
import normalise  # noqa: E402
import resp  # noqa: E402
import servers  # noqa: E402

REPLY_TIMEOUT_S = 10.0
CLOSED = b"<connection closed>"
NO_REPLY = b"<no reply within %d s>" % REPLY_TIMEOUT_S
SKIP = 77


class SetupError(Exception):
    pass


class ServerGone(Exception):
    """A server stopped answering connections in the middle of the run (a crash, or a command
    that shut it down)."""


class Server(servers.ServerProcess):
    """One server process on a free loopback port (conformance/lib/servers.py), with the runner's
    error semantics: a failed start is a SetupError, a stop reports the exit status."""

    def __init__(self, label, binary, workdir):
        super().__init__(binary, name=label, workdir=workdir)
        self.label = label

    def start(self):
        try:
            return super().start()
        except servers.StartError as error:
            raise SetupError(str(error)) from None

    def stop(self):
        """Stops the server and returns its exit status (None if it was not running)."""
        try:
            return super().stop()
        except servers.StopTimeout:
            return "killed after %d s" % servers.STOP_TIMEOUT_S


class Connection:
    def __init__(self, server):
        try:
            self.sock = socket.create_connection(("127.0.0.1", server.port),
                                                 timeout=REPLY_TIMEOUT_S)
        except OSError as error:
            status = server.process.poll() if server.process else None
            raise ServerGone("%s refused a connection (%s); exit status %s" % (
                server.label, error, "still running" if status is None else status)) from error
        self.reader = resp.Reader(self.sock)
        self.closed = False

    def call(self, args):
        """Returns (raw reply bytes, parsed Value or None)."""
        self.send(args)
        return self.receive()

    def send(self, args):
        """Sends one command; its reply is read by receive(). Sending to both servers before
        reading lets them work at the same time."""
        if self.closed:
            return
        try:
            self.sock.sendall(resp.encode_command(args))
        except OSError:
            self.closed = True

    def receive(self):
        """Returns (raw reply bytes, parsed Value or None) of the next reply."""
        if self.closed:
            return CLOSED, None
        try:
            return resp.read_reply(self.reader)
        except (resp.Closed, OSError):
            self.closed = True
            return CLOSED, None
        except resp.Timeout:
            self.closed = True  # the stream position is unknown now
            return NO_REPLY, None

    def wait_closed(self):
        """Waits (at most REPLY_TIMEOUT_S) until the server closes the connection, as it does
        after QUIT; returns False if it did not."""
        try:
            while self.sock.recv(65536):
                pass
            return True
        except ConnectionResetError:
            return True
        except OSError:
            return False

    def blocked_or_answered(self, admin, client_id):
        """Waits (at most REPLY_TIMEOUT_S) until this connection's command shows as blocked in
        CLIENT LIST (asked on `admin`) or its reply has arrived; returns False if neither."""
        deadline = time.monotonic() + REPLY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.reader.has_buffered() or select.select([self.sock], [], [], 0)[0]:
                return True
            raw, _ = admin.call([b"CLIENT", b"LIST", b"ID", client_id])
            flags = re.search(rb" flags=(\S*) ", raw)
            if flags and b"b" in flags.group(1):
                return True
            time.sleep(0.005)
        return False

    def call_ok(self, args, expected):
        raw, _ = self.call(args)
        if expected is not None and raw != expected:
            raise SetupError("runner setup %r: got %r" % (args, raw))
        return raw

    def close(self):
        self.sock.close()


def compare_form(args, raw, value):
    """What is compared for one reply: its bytes, or its normalised bytes."""
    found = normalise.normaliser_for(args)
    if found is None or value is None or value.kind in "-!":
        return raw, None
    name, why, function = found
    return resp.serialise(function(value, args)), "%s: %s" % (name, why)


def show(data, limit=3000):
    text = repr(data)
    return text if len(text) <= limit else text[:limit] + "... (%d bytes)" % len(data)


def first_difference_context(a, b, context=120):
    """The offset of the first differing byte and the bytes around it in both replies. For two
    bulk or verbatim strings the length lines are skipped: they differ whenever the texts do."""
    skip = 0
    if a[:1] == b[:1] and a[:1] in (b"$", b"=") and b"\r\n" in a and b"\r\n" in b:
        a_skip, b_skip = a.index(b"\r\n") + 2, b.index(b"\r\n") + 2
        if a_skip == b_skip:
            skip = a_skip
        else:
            a, b = a[a_skip:], b[b_skip:]
    index = next((i for i, (x, y) in enumerate(zip(a[skip:], b[skip:])) if x != y),
                 min(len(a), len(b)) - skip) + skip
    start = max(0, index - context)
    return index, a[start:index + context], b[start:index + context]


def text_diff(a, b, lines_max=400):
    """A line diff of two bulk or verbatim replies of text (INFO, CLIENT LIST), or None."""
    if a[:1] != b[:1] or a[:1] not in (b"$", b"="):
        return None
    bodies = [x.partition(b"\r\n")[2][:-2] for x in (a, b)]
    if not all(b"\n" in body for body in bodies):
        return None
    bodies = [body.decode("latin-1").splitlines() for body in bodies]
    diff = list(difflib.unified_diff(bodies[0], bodies[1], "redis", "keel", n=1, lineterm=""))
    if len(diff) > lines_max:
        diff = diff[:lines_max] + ["... (%d more diff lines)" % (len(diff) - lines_max)]
    return diff


class Difference:
    def __init__(self, case, proto, command_args, redis_form, keel_form, note):
        self.case = case
        self.proto = proto
        self.command_args = command_args
        self.redis_form = redis_form
        self.keel_form = keel_form
        self.note = note

    def report(self):
        where = "%s:%d" % (self.case.path, self.case.line_number) if self.case else "(runner)"
        out = ["DIFF %s (RESP%d)%s" % (where, self.proto,
                                       " [%s]" % self.case.block if self.case and
                                       self.case.block else "")]
        out.append("  command: %s" % (self.case.text if self.case else
                                      b" ".join(self.command_args).decode("latin-1")))
        if self.note:
            out.append("  normalised (%s)" % self.note)
        out.append("  redis: %s" % show(self.redis_form))
        out.append("  keel:  %s" % show(self.keel_form))
        lines = text_diff(self.redis_form, self.keel_form)
        if lines:
            out.append("  line diff of the text:")
            out += ["    " + line for line in lines]
        elif len(self.redis_form) > 200 or len(self.keel_form) > 200:
            index, redis_near, keel_near = first_difference_context(self.redis_form,
                                                                    self.keel_form)
            out.append("  first differing byte at offset %d:" % index)
            out.append("    redis: %s" % show(redis_near))
            out.append("    keel:  %s" % show(keel_near))
        return "\n".join(out)


def substitute(args, client_id, other_ids=None):
    """The arguments with {client_id} replaced by this connection's id on one server, and
    {client_id@N} by the id of the file's connection N on the same server (`other_ids` maps N
    to it: CLIENT TRACKING ... REDIRECT names another connection)."""
    out = []
    for arg in args:
        arg = arg.replace(b"{client_id}", client_id)
        if other_ids and b"{client_id@" in arg:
            arg = re.sub(rb"\{client_id@(\d+)\}",
                         lambda match: other_ids[int(match.group(1))], arg)
        out.append(arg)
    return out


def run_file(redis, keel, cases, proto, keep_going):
    """Runs one file's cases over `proto`; returns the Differences (the first only, unless
    keep_going) and the number of commands compared."""
    differences = []
    compared = 0
    # client number -> ([redis connection, keel connection], [their CLIENT IDs])
    clients = {}
    admins = []  # one more connection per server, to see whether a command blocked

    def open_client(number):
        pair = [Connection(redis), Connection(keel)]
        clients[number] = (pair, None)
        if number == 1:
            for connection in pair:
                connection.call_ok([b"FLUSHALL"], b"+OK\r\n")
        ids = [c.call_ok([b"CLIENT", b"ID"], None)[1:-2] for c in pair]
        clients[number] = (pair, ids)
        return clients[number]

    try:
        open_client(1)
        steps = []
        opened = {1}
        if proto == 3:
            steps.append((None, 1, [b"HELLO", b"3"]))
        for case in cases:
            if case.client not in opened:
                opened.add(case.client)
                steps.append(("open", case.client, None))
                if proto == 3:
                    steps.append((None, case.client, [b"HELLO", b"3"]))
            steps.append((case, case.client, case.args))
        for case, number, args in steps:
            if case == "open":
                open_client(number)
                continue
            pair, ids = clients[number]
            mode = case.mode if case is not None else "call"
            if mode == "block":
                if not admins:
                    admins.extend(Connection(server) for server in (redis, keel))
                for i, connection in enumerate(pair):
                    connection.send(substitute(args, ids[i]))
                for i, connection in enumerate(pair):
                    if not connection.blocked_or_answered(admins[i], ids[i]):
                        raise SetupError("%s:%d: %r neither blocked nor answered on %s" % (
                            case.path, case.line_number, case.text, (redis, keel)[i].label))
                continue
            if mode == "receive":
                replies = [c.receive() for c in pair]
            else:
                others = [{n: client[1][i] for n, client in clients.items() if client[1]}
                          for i in range(2)]
                replies = [c.call(substitute(args, ids[i], others[i]))
                           for i, c in enumerate(pair)]
            compared += 1
            (redis_form, note), (keel_form, _) = (compare_form(args, *r) for r in replies)
            if redis_form != keel_form:
                differences.append(Difference(case, proto, args, redis_form, keel_form, note))
                if not keep_going:
                    break
    finally:
        for pair, _ in clients.values():
            for connection in pair:
                connection.close()
        for connection in admins:
            connection.close()
    return differences, compared


def case_paths(targets):
    paths = []
    for target in targets:
        if os.path.isdir(target):
            paths += sorted(os.path.join(target, name) for name in os.listdir(target)
                            if name.endswith(".txt"))
        else:
            paths.append(target)
    return paths


def server_pair(keel_binary, redis_name, prefix):
    """The two servers to compare, in a fresh work directory and not started yet:
    (0, redis, keel, workdir). When a binary is missing, prints why and returns
    (2, None, None, None) for keel-server or (SKIP, None, None, None) for redis-server."""
    if keel_binary is None:
        print("SETUP: no keel-server binary (build one, or pass --keel)")
        return 2, None, None, None
    if not os.access(keel_binary, os.X_OK):
        print("SETUP: %s is not an executable" % keel_binary)
        return 2, None, None, None
    redis_binary = shutil.which(redis_name)
    if redis_binary is None:
        print("SKIP: %s not found" % redis_name)
        return SKIP, None, None, None
    workdir = tempfile.mkdtemp(prefix=prefix)
    return (0, Server("redis-server", redis_binary, workdir),
            Server("keel-server", os.path.abspath(keel_binary), workdir), workdir)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keel", required=True, help="path to keel-server")
    parser.add_argument("--redis", default="redis-server", help="redis-server to compare with")
    parser.add_argument("--keep-going", action="store_true",
                        help="report every difference, not only the first of each file")
    parser.add_argument("targets", nargs="*",
                        default=[os.path.join(os.path.dirname(here), "cases")])
    options = parser.parse_args()

    setup, redis, keel, workdir = server_pair(options.keel, options.redis, "keel-diff-")
    if setup:
        return setup
    try:
        files = [(path, casefile.load(path)) for path in case_paths(options.targets)]
    except (casefile.CaseError, OSError) as error:
        print("SETUP: %s" % error)
        return 2
    if not files:
        print("SETUP: no case files in %s" % " ".join(options.targets))
        return 2

    differences = []
    compared = 0
    status = 0
    server_trouble = False  # the server logs are worth keeping
    try:
        redis.start()
        keel.start()
        for path, cases in files:
            for proto in (2, 3):
                found, count = run_file(redis, keel, cases, proto, options.keep_going)
                differences += found
                compared += count
    except SetupError as error:
        print("SETUP: %s" % error)
        status = 2
        server_trouble = True
    except ServerGone as error:
        print("STOPPED before %s: %s" % (path, error))
        status = 1
        server_trouble = True
    finally:
        redis.stop()
        keel_status = keel.stop()
    for difference in differences:
        print(difference.report())
    if keel_status not in (0, None):
        print("keel-server exited with status %s; its log ends with:\n%s"
              % (keel_status, keel.log_tail()))
        status = status or 1
        server_trouble = True
    if differences:
        status = status or 1
    for command, gap in sorted(normalise.KNOWN_GAPS.items()):
        print("known gap: %s: %s" % (command.upper().replace("|", " "), gap))
    print("%d files, %d replies compared, %d difference%s" % (
        len(files), compared, len(differences), "" if len(differences) == 1 else "s"))
    if server_trouble:
        print("server logs kept in %s" % workdir)
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
