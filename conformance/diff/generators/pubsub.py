"""Random arguments for the pub/sub commands (Redis group "pubsub"): SUBSCRIBE, UNSUBSCRIBE,
PSUBSCRIBE, PUNSUBSCRIBE, SSUBSCRIBE, SUNSUBSCRIBE, PUBLISH, SPUBLISH and PUBSUB.

The runner follows each connection's subscriptions (answers.py): it reads one confirmation per
(un)subscribed name, and after a PUBLISH or SPUBLISH the messages it pushed to every subscribed
connection, and compares them all. Subscriptions stay short, so that most connections are
subscribed to nothing most of the time (a subscribed RESP2 connection refuses all but a few
commands): a connection that was sent a subscription is soon sent a way out of it (Sent,
LEAVE_CHANCE). PUBLISH weighs more than the rest of the family, and mostly names a channel that a
recent subscription drew (Gen.remember), so that its messages reach someone: at seeds 1..5, a
run of 3,000 commands sends 12-19% of them on a subscribed connection and pushes 6-15 messages.

Channel names meet each other's patterns (news, news.eu, a channel named n* that the escaped
pattern n\\* matches literally, the empty channel, which even * does not match in Redis), and no
pattern can match the __keyspace@ and __keyevent@ channels, whose notifications (CONFIG SET
notify-keyspace-events) the runner does not follow. Shard channels use the same names, in their
own namespace.
"""

CHANNELS = [b"news", b"news.eu", b"ch", b"n*", b"", b"\x00\xff c"]
PATTERNS = [b"news*", b"news.*", b"n*", b"n\\*", b"c?", b"[cn]*", b"news.[a-f]?", b"[^_n]*",
            b"news"]


def _names(gen, names):
    return [gen.pick(names) for _ in range(gen.weighted([(70, 1), (25, 2), (5, 3)]))]


def _subscribe(name, names):
    def generate(gen):
        drawn = _names(gen, names)
        gen.remember(name, drawn)
        return [gen.token(name)] + drawn
    return generate


def _unsubscribe(name, names):
    # Mostly from everything of the kind: subscriptions end soon.
    def generate(gen):
        return [gen.token(name)] + ([] if gen.chance(0.8) else _names(gen, names))
    return generate


def _every_pattern(gen):
    return [gen.token("punsubscribe")] + gen.rng.sample(PATTERNS, len(PATTERNS))


def punsubscribe(gen):
    """Mostly every pattern: without names (Redis confirms them in the order subscribed, its
    client's patterns being a list) or naming them all; else some."""
    if gen.chance(0.5):
        return [gen.token("punsubscribe")]
    return _every_pattern(gen) if gen.chance(0.5) else \
        [gen.token("punsubscribe")] + _names(gen, PATTERNS)


def _publish(name, subscribe):
    # Mostly to a channel that a recent subscription named, so that messages reach someone.
    def generate(gen):
        recent = gen.recalled(subscribe)
        channel = gen.pick(recent) if recent and gen.chance(0.85) else gen.pick(CHANNELS)
        args = [gen.token(name), channel, gen.value()]
        return args if gen.chance(0.97) else args[:2]
    return generate


def pubsub_channels(name):
    def generate(gen):
        return gen.name(name) + ([gen.pick(PATTERNS + [b"*"])] if gen.chance(0.5) else [])
    return generate


def pubsub_numsub(name):
    def generate(gen):
        return gen.name(name) + [gen.pick(CHANNELS) for _ in range(gen.rng.randint(0, 3))]
    return generate


def pubsub_numpat(gen):
    return gen.name("pubsub|numpat") + ([gen.value()] if gen.chance(0.05) else [])


def pubsub_help(gen):
    return gen.name("pubsub|help")


# Subscriptions end soon: on each turn of a connection that was sent a subscription, the runner
# draws, with this chance, a command that leaves it (leave()) instead of the table's.
LEAVE_CHANCE = 0.05
# Each kind of subscription: the commands that join and leave it, and its names.
KINDS = {"channels": (b"subscribe", b"unsubscribe", CHANNELS),
         "patterns": (b"psubscribe", b"punsubscribe", PATTERNS),
         "shard": (b"ssubscribe", b"sunsubscribe", CHANNELS)}


class Sent:
    """What the runner sent one connection, as far as drawing its next command cares: the kinds
    of subscription it joined and was not sent a way out of. Followed from the commands sent,
    whether the servers took them or not, never from the replies: the sequence stays the
    seed's."""

    def __init__(self):
        self.joined = set()

    def follow(self, args):
        name = args[0].lower()
        ends = len(args) == 1  # RESET with arguments is refused
        if name == b"quit" or (name == b"reset" and ends):
            self.joined = set()
        for kind, (join, part, names) in KINDS.items():
            if name == join and len(args) > 1:
                self.joined.add(kind)
            elif name == part and (ends or set(args[1:]) >= set(names)):
                self.joined.discard(kind)


def leave(gen, joined):
    """A command that leaves one of the `joined` kinds of subscription, or RESET (all of them)."""
    if gen.chance(0.25):
        return [gen.token("reset")]
    kind = gen.pick(sorted(joined))
    if kind == "patterns":
        return _every_pattern(gen)
    return [gen.token(KINDS[kind][1].decode())]


GENERATORS = {
    "subscribe": (1.2, _subscribe("subscribe", CHANNELS)),
    "psubscribe": (1, _subscribe("psubscribe", PATTERNS)),
    "ssubscribe": (0.8, _subscribe("ssubscribe", CHANNELS)),
    "unsubscribe": (1, _unsubscribe("unsubscribe", CHANNELS)),
    "punsubscribe": (0.8, punsubscribe),
    "sunsubscribe": (0.6, _unsubscribe("sunsubscribe", CHANNELS)),
    "publish": (8, _publish("publish", "subscribe")),
    "spublish": (3, _publish("spublish", "ssubscribe")),
    "pubsub|channels": (0.3, pubsub_channels("pubsub|channels")),
    "pubsub|shardchannels": (0.3, pubsub_channels("pubsub|shardchannels")),
    "pubsub|numsub": (0.3, pubsub_numsub("pubsub|numsub")),
    "pubsub|shardnumsub": (0.3, pubsub_numsub("pubsub|shardnumsub")),
    "pubsub|numpat": (0.3, pubsub_numpat),
}

NOT_GENERATED = {
    "pubsub|help": ("its text is compared by conformance/cases/pubsub.txt", pubsub_help),
}
