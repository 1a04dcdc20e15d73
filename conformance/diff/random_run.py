"""The seeded random differential run: random command sequences, generated from the table in
generators/, sent to redis-server and keel-server alike and compared reply by reply (bytes, or
the normalised forms named in normalise.py, exactly as for the case files).

Run it as `conformance/run --seed N --ops K`. Several connections per server (each opened over
RESP2 or, after HELLO 3, RESP3, and free to switch with HELLO, RESET and QUIT) take turns at
random; their commands move between databases and subscribe to channels, and the messages a
PUBLISH pushes to subscribed connections are read and compared right after its reply (answers.py
says how many values each command sends where). The sequence depends only on the seed, the options
and the command table, never on the replies, so the same arguments replay the same run. The run
stops at the first command whose replies (or pushed messages) differ, prints it with both, the
commands before it on that connection, and the arguments that reproduce it.

Exit status: 0 when every reply matched (and keel-server exited cleanly), 1 on a difference,
2 on a setup error (including a command Keel implements that the table does not generate, and
redis-server's values disagreeing with the runner's model of the connections), 77 when
redis-server is not installed.
"""

import argparse
import collections
import os
import random
import shutil
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import answers  # noqa: E402
import casefile  # noqa: E402
import generators  # noqa: E402
import run_diff  # noqa: E402
from generators import pubsub  # noqa: E402

HISTORY_LENGTH = 12  # commands shown before a difference, per connection
SHOWN_ARG_BYTES_MAX = 200
PROGRESS_EVERY_S = 10.0


class Coverage(Exception):
    """The table and Keel's registry disagree."""


def listed_commands(connection):
    """{name: arity} of every command and subcommand a server lists (COMMAND LIST, then
    COMMAND INFO for the arities)."""
    _, listed = connection.call([b"COMMAND", b"LIST"])
    names = [value.data.decode() for value in listed.data]
    _, infos = connection.call([b"COMMAND", b"INFO"] + [name.encode() for name in names])
    arities = {}
    for name, info in zip(names, infos.data):
        if info.data is None:
            raise run_diff.SetupError("COMMAND INFO %s is empty but COMMAND LIST names it" % name)
        arities[name] = int(info.data[1].data)
    return arities


def partial_containers(keel_commands, redis_commands):
    """Containers Keel has with fewer subcommands than Redis's (CLIENT, for now): COMMAND INFO and
    DOCS of them list their subcommands, so they necessarily differ."""
    def subcommands(commands, container):
        return {name for name in commands if name.startswith(container + "|")}
    containers = {name.split("|")[0] for name in keel_commands if "|" in name}
    return {container for container in containers
            if subcommands(keel_commands, container) != subcommands(redis_commands, container)}


def build_table(commands, table, not_generated, known, options):
    """The weighted entries of this run: [(weight, name, function)]. Raises Coverage when a command
    Keel implements is neither generated nor excluded with a reason."""
    containers = {name.split("|")[0] for name in commands if "|" in name}
    missing = [name for name in sorted(commands)
               if name not in table and name not in not_generated and name not in containers]
    if missing:
        raise Coverage("keel-server implements commands that conformance/diff/generators/ does not "
                       "generate: %s. Add a generator (or a NOT_GENERATED reason) in the "
                       "family's module." % ", ".join(missing))
    available = {}
    for name, (_, weight, function) in table.items():
        if name.startswith("(") or name in commands:
            available[name] = (weight, function)
    for name, (_, _, function) in not_generated.items():
        if name in commands:
            available.setdefault(name, (0, function))
    if options.only:
        unknown = [name for name in options.only if name not in available]
        if unknown:
            raise Coverage("--only names no generator: %s" % ", ".join(unknown))
        entries = [(available[name][0] or 1, name, available[name][1]) for name in options.only]
    else:
        entries = [(weight, name, function) for name, (weight, function) in
                   sorted(available.items()) if weight > 0]
    if options.known_divergences:
        entries += [(2, "%s (known divergence)" % name, function)
                    for name, _, function in known if name in commands]
    return entries


class Side:
    """One logical connection: its socket to each server and what the runner knows of its
    state, for reports."""

    def __init__(self, number, proto):
        self.number = number
        self.initial_proto = proto
        self.proto = proto
        self.db = 0
        self.pair = None
        self.ids = None
        self.history = collections.deque(maxlen=HISTORY_LENGTH)
        # Inside MULTI: the commands queued (as sent), whose replies EXEC's reply holds in order;
        # None outside a transaction.
        self.queued = None
        self.subscriptions = answers.Subscriptions()  # followed by answers.plan
        self.sent = pubsub.Sent()

    def open(self, redis, keel):
        self.pair = [run_diff.Connection(redis), run_diff.Connection(keel)]
        self.ids = [c.call_ok([b"CLIENT", b"ID"], None)[1:-2] for c in self.pair]
        self.proto = 2
        self.db = 0
        self.queued = None
        self.subscriptions.clear()
        if self.initial_proto == 3:
            replies = [c.call([b"HELLO", b"3"]) for c in self.pair]
            if any(raw[:1] != b"%" for raw, _ in replies):
                raise run_diff.SetupError("HELLO 3 was refused: %r" % [r for r, _ in replies])
            self.proto = 3

    def close(self):
        for connection in self.pair or []:
            connection.close()
        self.pair = None

    def describe(self):
        return "connection %d (RESP%d, db %d)" % (self.number, self.proto, self.db)

    def track(self, args, raw):
        """Follows the connection state the command changed (as Redis replied)."""
        name = args[0].lower()
        if self.queued is not None:
            if raw == b"+QUEUED\r\n":
                self.queued.append(args)
            elif name in (b"exec", b"discard", b"reset"):
                self.queued = None
            return  # a queued SELECT or HELLO takes effect in EXEC: not followed (reports only)
        if raw[:1] in (b"-", b"!"):
            return
        if name == b"multi":
            self.queued = []
        if name == b"select":
            self.db = int(args[1])
        elif name == b"hello" and len(args) > 1:
            self.proto = int(args[1])
        elif name == b"reset":
            self.db, self.proto = 0, 2


def summarise(raw, limit=60):
    text = repr(raw)[2:-1]
    return text if len(text) <= limit else text[:limit] + "... (%d bytes)" % len(raw)


def reproduce_line(options, ops):
    line = "conformance/run --seed %d --ops %d" % (options.seed, ops)
    if options.connections != DEFAULT_CONNECTIONS:
        line += " --connections %d" % options.connections
    if options.only:
        line += " --only %s" % ",".join(options.only)
    if options.known_divergences:
        line += " --known-divergences"
    return line


def report_difference(options, index, side, args, redis_form, keel_form, note, receiver=None):
    """The report of a difference in the values `args` sent on `side`'s connection, or in the
    messages it pushed to `receiver`'s."""
    out = ["DIFF at command %d of seed %d: %s" % (index + 1, options.seed, side.describe())]
    out.append("  command: %s" % casefile.quote(args, SHOWN_ARG_BYTES_MAX))
    if receiver is not None:
        out.append("  the messages it pushed to %s differ:" % receiver.describe())
    if note:
        out.append("  normalised (%s)" % note)
    out.append("  redis: %s" % run_diff.show(redis_form))
    out.append("  keel:  %s" % run_diff.show(keel_form))
    lines = run_diff.text_diff(redis_form, keel_form)
    if lines:
        out.append("  line diff of the text:")
        out += ["    " + line for line in lines]
    elif len(redis_form) > 200 or len(keel_form) > 200:
        offset, redis_near, keel_near = run_diff.first_difference_context(redis_form, keel_form)
        out.append("  first differing byte at offset %d:" % offset)
        out.append("    redis: %s" % run_diff.show(redis_near))
        out.append("    keel:  %s" % run_diff.show(keel_near))
    for where, connection in (("this connection", side), ("the receiving connection", receiver)):
        if connection is not None and connection.history:
            out.append("  earlier on %s (command number, command -> redis's reply):" % where)
            out += ["    %d: %s -> %s" % entry for entry in connection.history]
    out.append("reproduce: %s" % reproduce_line(options, index + 1))
    return "\n".join(out)


def compare_pushes(options, index, side, args, sides, answer):
    """Reads and compares the messages `answer` says the command pushed to the other
    connections; returns a difference's report, or None."""
    for number, parts in sorted(answer.pushes.items()):
        receiver = sides[number]
        redis_reading = answers.Reading(receiver.pair[0]).read(sum(c for c, _, _ in parts))
        keel_reading = answers.Reading(receiver.pair[1]).read_like(redis_reading)
        (redis_form, note), (keel_form, _) = (answers.form(parts, reading)
                                              for reading in (redis_reading, keel_reading))
        if redis_form != keel_form:
            return report_difference(options, index, side, args, redis_form, keel_form, note,
                                     receiver)
        receiver.history.append((index + 1, "(pushed by connection %d)" % side.number,
                                 summarise(b"".join(redis_reading.raws))))
    return None


def run(options, redis, keel):
    """Returns (status, report lines)."""
    rng = random.Random(options.seed)
    sides = [Side(number, rng.choice([2, 3])) for number in range(1, options.connections + 1)]
    for side in sides:
        side.open(redis, keel)
    # Both servers are asked the same, so that INFO commandstats stays alike. The probes stay
    # open (idle) until the end: a connection closed now could still be in a CLIENT LIST on one
    # server and gone from the other.
    probes = [run_diff.Connection(redis), run_diff.Connection(keel)]
    redis_commands, commands = (listed_commands(probe) for probe in probes)
    table, not_generated, known = generators.load()
    entries = build_table(commands, table, not_generated, known, options)
    gen = generators.Gen(rng, commands, table, partial_containers(commands, redis_commands))
    weights = [weight for weight, _, _ in entries]
    counts = collections.Counter()
    errors = collections.Counter()
    protos = collections.Counter()
    seconds = collections.Counter()  # wall time per command name: what makes the run long
    everyone = [side.subscriptions for side in sides]
    subscribed = 0  # commands sent on a subscribed connection
    messages = 0  # messages PUBLISH and SPUBLISH pushed
    last_progress = time.monotonic()
    for index in range(options.ops):
        side = sides[rng.randrange(len(sides))]
        if side.sent.joined and rng.random() < pubsub.LEAVE_CHANCE:
            entry_name, function = "(leave pub/sub)", lambda g: pubsub.leave(g, side.sent.joined)
        else:
            _, entry_name, function = rng.choices(entries, weights)[0]
        command_started = time.monotonic()
        args = function(gen)
        side.sent.follow(args)
        for connection, client_id in zip(side.pair, side.ids):
            connection.send(run_diff.substitute(args, client_id))
        subscribed += side.subscriptions.any()
        redis_reading = answers.Reading(side.pair[0])
        try:
            answer = answers.plan(args, side.queued if args[0].lower() == b"exec" else None,
                                  everyone, side.number - 1, redis_reading)
        except answers.ModelError as error:
            return 2, ["MODEL at command %d of seed %d: %s: %s (a bug of the runner)\n"
                       "reproduce: %s" % (index + 1, options.seed, side.describe(), error,
                                          reproduce_line(options, index + 1))]
        keel_reading = answers.Reading(side.pair[1]).read_like(redis_reading)
        (redis_form, note), (keel_form, _) = (answers.form(answer.parts, reading, answer.in_exec)
                                              for reading in (redis_reading, keel_reading))
        messages += answer.messages
        counts[entry_name] += 1
        protos[side.proto] += 1
        if redis_form != keel_form:
            return 1, [report_difference(options, index, side, args, redis_form, keel_form, note)]
        pushed = compare_pushes(options, index, side, args, sides, answer)
        if pushed:
            return 1, [pushed]
        seconds[entry_name] += time.monotonic() - command_started
        raw = redis_reading.raws[0]
        if raw[:1] in (b"-", b"!"):
            errors[entry_name] += 1
        side.history.append((index + 1, casefile.quote(args, 40),
                             summarise(b"".join(redis_reading.raws))))
        side.track(args, raw)
        if raw == run_diff.CLOSED or args[0].lower() == b"quit":
            # QUIT closed both connections (after replying); wait for it, then open new ones.
            if not all(connection.wait_closed() for connection in side.pair):
                return 1, ["DIFF at command %d of seed %d: a server kept %s open after QUIT\n"
                           "reproduce: %s" % (index + 1, options.seed, side.describe(),
                                              reproduce_line(options, index + 1))]
            side.close()
            side.open(redis, keel)
        if time.monotonic() - last_progress > PROGRESS_EVERY_S:
            last_progress = time.monotonic()
            print("... %d commands compared" % (index + 1), flush=True)
    # A message pushed where none was due is read in place of its connection's next value: one
    # more PING on every connection reads what the last commands left.
    for side in sides:
        (redis_raw, _), (keel_raw, _) = (connection.call([b"PING"]) for connection in side.pair)
        if redis_raw != keel_raw:
            return 1, ["DIFF after the last command of seed %d: %s answers the runner's PING\n"
                       "  redis: %s\n  keel:  %s\nreproduce: %s" % (
                           options.seed, side.describe(), run_diff.show(redis_raw),
                           run_diff.show(keel_raw), reproduce_line(options, options.ops))]
    for connection in sides + probes:
        connection.close()
    by_command = ", ".join("%s %d (%d errors)" % (name, counts[name], errors[name])
                           for name in sorted(counts))
    slowest = ", ".join("%s %.1f s" % (name, spent) for name, spent in seconds.most_common(8))
    return 0, ["%d commands compared (RESP2 %d, RESP3 %d), 0 differences; seed %d" % (
        options.ops, protos[2], protos[3], options.seed),
        "pub/sub: %d commands sent on a subscribed connection, %d messages pushed" % (
            subscribed, messages),
        "by command: " + by_command, "most time: " + slowest]


DEFAULT_CONNECTIONS = 3


def parse_options(argv):
    parser = argparse.ArgumentParser(
        prog="conformance/run",
        description="Seeded random differential run: redis-server and keel-server get the same "
                    "random commands and must reply alike.")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--ops", type=int, required=True, help="how many commands to compare")
    parser.add_argument("--keel", help="keel-server binary (default: build/asan, else "
                                       "build/release, else build/debug)")
    parser.add_argument("--redis", default="redis-server", help="redis-server to compare with")
    parser.add_argument("--connections", type=int, default=DEFAULT_CONNECTIONS,
                        help="connections per server (default %(default)s)")
    parser.add_argument("--only", type=lambda text: [n for n in text.split(",") if n],
                        help="generate only these commands (comma-separated, as in "
                             "generators/; also those in NOT_GENERATED)")
    parser.add_argument("--known-divergences", action="store_true",
                        help="also generate the known divergences (KNOWN_DIVERGENCES)")
    return parser.parse_args(argv)


def default_keel(root):
    for preset in ("asan", "release", "debug"):
        path = os.path.join(root, "build", preset, "io", "keel-server")
        if os.access(path, os.X_OK):
            return path
    return None


def main(argv=None):
    options = parse_options(argv)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    setup, redis, keel, workdir = run_diff.server_pair(options.keel or default_keel(root),
                                                       options.redis, "keel-random-")
    if setup:
        return setup
    started = time.monotonic()
    status, lines = 2, []
    try:
        redis.start()
        keel.start()
        status, lines = run(options, redis, keel)
    except (run_diff.SetupError, Coverage) as error:
        lines = ["SETUP: %s" % error]
    except run_diff.ServerGone as error:
        status, lines = 1, ["STOPPED: %s" % error]
    finally:
        redis.stop()
        keel_status = keel.stop()
    for line in lines:
        print(line)
    if keel_status not in (0, None) or keel.sanitizer_report():
        print("keel-server exited with status %s; its log ends with:\n%s"
              % (keel_status, keel.log_tail()))
        status = status or 1
    print("%.1f s" % (time.monotonic() - started))
    if status:
        print("server logs kept in %s" % workdir)
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
