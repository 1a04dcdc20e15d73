"""What every family's argument generators draw from: Gen, over one seeded random.Random.

The key space is small (a few names, in several databases) so that commands meet each other's
keys; values and numbers mix plausible and implausible ones: empty, binary, huge, negative,
overflowing, not numbers at all. Nothing here depends on the servers' replies, so a seed and a
command table give the same sequence every time.
"""

import collections

# Keys: mostly a handful of plain names, sometimes the empty name or one with binary bytes.
PLAIN_KEYS = [b"k0", b"k1", b"k2", b"k3", b"k4"]
ODD_KEYS = [b"", b"\x00k\xff\r\n", b"K0", b"{k}0"]
# Databases: several of the 16 default ones; the runner's connections move between them.
PLAUSIBLE_DBS = [0, 0, 1, 2, 3]
# 64-bit limits and just past them, which integer parsers get wrong.
INT64_MAX = 9223372036854775807
INT64_MIN = -9223372036854775808
NOT_INTEGERS = [b"", b" 1", b"1 ", b"+1", b"1.5", b"1e3", b"0x10", b"abc", b"--1", b"1\x00",
                b"9223372036854775808", b"-9223372036854775809", b"99999999999999999999",
                b"inf", b"nan", b"-"]
# Far past and far future absolute times (seconds), fixed so that a seed reproduces exactly.
PAST_UNIX_S = [1, 1000000000]
FUTURE_UNIX_S = [4102444800, 32503680000]  # 2100-01-01, 3000-01-01
# How many of its latest draws a topic of Gen.remember keeps.
REMEMBERED_MAX = 2
# Commands Keel has from Redis versions after the 7.0 reference, which the reference server
# does not know: never named in another command's arguments (COMMAND INFO, GETKEYS, ...).
NEWER_THAN_REFERENCE = {
    "client|no-touch",
    # Hash field expiry (Redis 7.4) and HGETEX, HSETEX, HGETDEL (Redis 8.0): checked by
    # engine/commands/cmd_hash_ttl_test.cc against the documented replies.
    "hexpire", "hpexpire", "hexpireat", "hpexpireat", "httl", "hpttl", "hexpiretime",
    "hpexpiretime", "hpersist", "hgetex", "hsetex", "hgetdel",
}


class Gen:
    """A random source with helpers for plausible and implausible arguments.

    rng: a random.Random. commands: {name: arity} of the commands Keel implements ("client|id"
    for subcommands), for generators that name other commands (COMMAND INFO, COMMAND GETKEYS).
    generators: {name: (family, weight, function)}, so that one generator can draw another's
    arguments (COMMAND GETKEYS of a generated SET). partial_containers: the containers of which Keel
    has only some subcommands (their COMMAND INFO and DOCS list the subcommands, so they differ).
    """

    def __init__(self, rng, commands, generators, partial_containers=()):
        self.rng = rng
        self.commands = commands
        known = set(commands) - NEWER_THAN_REFERENCE
        self.command_names = sorted(known)
        self.complete_command_names = sorted(known - set(partial_containers))
        self.generators = generators
        self.remembered = collections.defaultdict(
            lambda: collections.deque(maxlen=REMEMBERED_MAX))

    # Choices --------------------------------------------------------------------------------

    def chance(self, probability):
        return self.rng.random() < probability

    def pick(self, items):
        return items[self.rng.randrange(len(items))]

    def weighted(self, pairs):
        """One item of [(weight, item), ...]."""
        total = sum(weight for weight, _ in pairs)
        point = self.rng.random() * total
        for weight, item in pairs:
            point -= weight
            if point < 0:
                return item
        return pairs[-1][1]

    def remember(self, topic, items):
        """Keeps items drawn now for a later draw to meet (recalled): PUBLISH picks the channels
        that SUBSCRIBE drew. Draws, not replies: the sequence stays the seed's."""
        self.remembered[topic].extend(items)

    def recalled(self, topic):
        """The latest items remembered under `topic` (empty when none)."""
        return list(self.remembered[topic])

    def subset(self, items, count_max=None):
        """A random selection of items, in random order, each at most once."""
        count = self.rng.randint(0, len(items) if count_max is None else count_max)
        return self.rng.sample(items, count)

    # Words ----------------------------------------------------------------------------------

    def token(self, word):
        """An option name in random letter case (Redis matches options case-insensitively)."""
        if isinstance(word, str):
            word = word.encode()
        roll = self.rng.random()
        if roll < 0.45:
            return word.upper()
        if roll < 0.9:
            return word.lower()
        return bytes(c ^ 0x20 if chr(c).isalpha() and self.chance(0.5) else c for c in word)

    def name(self, name):
        """A command name ("get" or "client|id") as its argument words in random case."""
        return [self.token(part) for part in name.split("|")]

    def junk_word(self):
        """A word that is no option of any command."""
        return self.pick([b"foo", b"nosuchoption", b"", b"\x00", b"ex\x00", b"-", b"x" * 70])

    # Keys and values ------------------------------------------------------------------------

    def key(self):
        return self.pick(PLAIN_KEYS) if self.chance(0.93) else self.pick(ODD_KEYS)

    def keys(self, count_min=1, count_max=4):
        return [self.key() for _ in range(self.rng.randint(count_min, count_max))]

    def binary(self, length_max=40):
        return bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, length_max)))

    def value(self):
        """A string value: empty, short, numeric, binary, long, and (rarely) huge."""
        kind = self.weighted([(10, "empty"), (40, "word"), (15, "integer"), (5, "float"),
                              (12, "binary"), (15, "medium"), (2.8, "large"), (0.2, "huge")])
        if kind == "empty":
            return b""
        if kind == "word":
            return b"v%d" % self.rng.randrange(1000)
        if kind == "integer":
            return b"%d" % self.integer()
        if kind == "float":
            return self.pick([b"1.5", b"-0.25", b"3e5", b"1e-3", b"inf", b"-inf", b"nan", b"0.0"])
        if kind == "binary":
            return self.binary()
        if kind == "medium":
            return self.filler(self.rng.randint(41, 2000))
        if kind == "large":
            return self.filler(self.rng.randint(4096, 65536))
        return self.filler(self.rng.randint(256 * 1024, 1024 * 1024))

    def filler(self, length):
        """`length` bytes of a repeated random pattern (cheap to make, not all one byte)."""
        pattern = self.binary(16)
        return (pattern * (length // len(pattern) + 1))[:length]

    # Numbers --------------------------------------------------------------------------------

    def integer(self):
        """A 64-bit integer, often small, sometimes at the limits."""
        return self.weighted([
            (50, self.rng.randint(0, 100)), (20, self.rng.randint(-100, -1)),
            (15, self.rng.randint(101, 10 ** 12)), (5, INT64_MAX), (5, INT64_MIN),
            (5, self.rng.choice([INT64_MAX - 1, INT64_MIN + 1, 2 ** 32, -2 ** 31]))])

    def integer_arg(self, plausible):
        """An integer argument: `plausible()` most of the time, else zero, negative, a 64-bit limit
        or text that is no integer."""
        roll = self.rng.random()
        if roll < 0.75:
            return b"%d" % plausible()
        if roll < 0.9:
            return b"%d" % self.pick([0, -1, -100, INT64_MAX, INT64_MIN, INT64_MAX // 1000 + 1])
        return self.pick(NOT_INTEGERS)

    def db_index(self):
        if self.chance(0.9):
            return b"%d" % self.pick(PLAUSIBLE_DBS)
        return self.integer_arg(lambda: self.rng.randint(4, 15))

    # Other commands -------------------------------------------------------------------------

    def command_name(self, complete=False):
        """The name of a command Keel implements, as COMMAND LIST spells it; with `complete`, not
        a container of which Keel lacks subcommands."""
        return self.pick(self.complete_command_names if complete else self.command_names)

    def data_command_name(self):
        """A command Keel implements from a data family (one that takes keys), or any command
        when there is none."""
        names = [name for name in self.command_names if name in self.generators and
                 self.generators[name][0] not in ("connection", "server")]
        return self.pick(names or self.command_names)

    def args_for(self, name):
        """Generated arguments of another command (for COMMAND GETKEYS), or just its name when
        it has no generator."""
        entry = self.generators.get(name)
        return entry[2](self) if entry else self.name(name)
