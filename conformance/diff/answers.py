"""What one command of the random run answers, and what of it is compared: the values it sends on
its own connection, and the messages it pushes to subscribed connections.

Most commands send one reply. The pub/sub commands send more, and the runner must read exactly
what each server sends to stay in step with it:

- (P|S)SUBSCRIBE and (P|S)UNSUBSCRIBE confirm each name they are given, one value each; without
  names, UNSUBSCRIBE and its kin confirm every subscription of their kind, or send one value
  (with a null name) when there is none.
- PUBLISH and SPUBLISH push a message to every connection subscribed to the channel (message,
  smessage) and one per pattern that matches it (pmessage). A connection that publishes while
  subscribed itself (over RESP3, or inside EXEC) gets its messages before the reply, as Redis 7.0
  sends them.
- EXEC's array counts the queued commands but holds every value they sent: a queued SUBSCRIBE of
  two channels adds an element past the count, a queued PUBLISH the messages it pushes to its
  own connection (inside the array, as Redis 7.0 writes them). The elements past the count are
  read as values after the array.

So the runner follows each connection's subscriptions (Subscriptions) as redis-server confirms
them: a command that redis-server refused or queued changes nothing. plan() reads redis-server's
values as it needs them and says how many the command sends on its own connection and pushes to
each other one; keel-server is then read the same amounts (Reading.read_like) and form() gives
what is compared. What is read never changes what is sent: the sequence stays the seed's.

The model is checked against what redis-server says (its confirmations' counts, PUBLISH's count of
receivers): a disagreement is a bug of the runner, not of Keel (ModelError). A message Keel pushes
to a connection that should not have it is read in place of that connection's next value, and
differs there.
"""

import normalise
from resp import Value, serialise

# The (un)subscribe commands: the kind of name each takes, and whether it subscribes.
SUBSCRIBING = {b"subscribe": ("channels", True), b"unsubscribe": ("channels", False),
               b"psubscribe": ("patterns", True), b"punsubscribe": ("patterns", False),
               b"ssubscribe": ("shard", True), b"sunsubscribe": ("shard", False)}
PUBLISHING = (b"publish", b"spublish")


class ModelError(Exception):
    """redis-server's values disagree with the runner's model of the connections."""


def glob_match(pattern, text):
    """Whether Redis's glob pattern matches text, as util.c's stringmatchlen (case-sensitive)
    decides: * ? [abc] [^a] [a-z] and \\ escapes, and a * that matches nothing only after
    something matched (the pattern * does not match the empty channel). Bytes compare unsigned
    where Redis compares signed chars: the same for every class of ASCII ranges."""
    p = t = 0
    while p < len(pattern) and t < len(text):
        char = pattern[p:p + 1]
        if char == b"*":
            while pattern[p + 1:p + 2] == b"*":
                p += 1
            if p + 1 == len(pattern):
                return True
            return any(glob_match(pattern[p + 1:], text[start:])
                       for start in range(t, len(text)))
        if char == b"[":
            p += 1
            negated = pattern[p:p + 1] == b"^"
            if negated:
                p += 1
            matched = False
            while True:
                if pattern[p:p + 1] == b"\\" and len(pattern) - p >= 2:
                    p += 1
                    matched |= pattern[p] == text[t]
                elif pattern[p:p + 1] == b"]":
                    break
                elif p == len(pattern):  # no closing bracket: the class ends with the pattern
                    p -= 1
                    break
                elif len(pattern) - p >= 3 and pattern[p + 1:p + 2] == b"-":
                    low, high = sorted((pattern[p], pattern[p + 2]))
                    matched |= low <= text[t] <= high
                    p += 2
                else:
                    matched |= pattern[p] == text[t]
                p += 1
            if matched == negated:
                return False
        elif char != b"?":
            if char == b"\\" and len(pattern) - p >= 2:
                p += 1
            if pattern[p] != text[t]:
                return False
        p += 1
        t += 1
        if t == len(text):
            while pattern[p:p + 1] == b"*":
                p += 1
            break
    return p == len(pattern) and t == len(text)


class Subscriptions:
    """What one connection is subscribed to: channels, patterns and shard channels."""

    def __init__(self):
        self.names = {"channels": set(), "patterns": set(), "shard": set()}

    def any(self):
        return any(self.names.values())

    def clear(self):
        for names in self.names.values():
            names.clear()

    def count(self, kind):
        """The count a confirmation of `kind` carries: Redis 7.0 counts channels and patterns
        together, shard channels apart."""
        if kind == "shard":
            return len(self.names["shard"])
        return len(self.names["channels"]) + len(self.names["patterns"])

    def deliveries(self, name, channel):
        """How many messages PUBLISH (name b"publish") or SPUBLISH to `channel` pushes here."""
        if name == b"spublish":
            return int(channel in self.names["shard"])
        return int(channel in self.names["channels"]) + sum(
            glob_match(pattern, channel) for pattern in self.names["patterns"])


class Answer:
    """What a command sends. parts: on its own connection; pushes: {connection index: parts} to
    the others. A part is (count, normaliser, note): `count` values in a row, compared after
    normaliser(values) (None: as they are), `note` naming why. in_exec: the values are EXEC's
    elements then the values after its array. messages: how many messages it published."""

    def __init__(self, in_exec):
        self.parts = []
        self.pushes = {}
        self.in_exec = in_exec
        self.messages = 0


def _reply_part(args, in_exec):
    found = normalise.normaliser_for(args, in_exec)
    if found is None:
        return 1, None, None
    name, why, function = found
    return 1, lambda values: [function(values[0], args)], "%s: %s" % (name, why)


def _confirmations(args, subscriptions, element, at):
    """The part of an (un)subscribe command redis-server ran, after updating `subscriptions`."""
    kind, subscribes = SUBSCRIBING[args[0].lower()]
    held = subscriptions.names[kind]
    names = args[1:]
    count = len(names) or max(1, len(held))
    if subscribes:
        held.update(names)
    elif names:
        held.difference_update(names)
    else:
        held.clear()
    last = element(at + count - 1)
    said = last.data[2] if last is not None and last.kind in "*>" and last.data is not None \
        and len(last.data) == 3 else None
    if said is None or said.kind != ":" or int(said.data) != subscriptions.count(kind):
        raise ModelError("%r: the runner expected %d confirmations, the last counting %d; "
                         "redis-server's last is %r" % (args, count, subscriptions.count(kind),
                                                        last))
    if not subscribes and not names and kind != "patterns":
        why, function = normalise.UNSUBSCRIBE_ALL
        return count, function, "%s without names: %s" % (args[0].decode("latin-1").lower(), why)
    return count, None, None


def _publication(args, everyone, me, element, at, answer):
    """The parts of a PUBLISH or SPUBLISH redis-server ran: the messages to the publisher itself
    and its reply; the messages to the others go to answer.pushes."""
    name, channel = args[0].lower(), args[1]
    why, function = normalise.PUBLISHED
    part = "messages of %s: %s" % (name.decode(), why)
    receivers = 0
    for index, subscriptions in enumerate(everyone):
        count = subscriptions.deliveries(name, channel)
        receivers += count
        if count and index != me:
            answer.pushes.setdefault(index, []).append((count, function, part))
    answer.messages += receivers
    own = everyone[me].deliveries(name, channel)
    reply = element(at + own)
    if reply is None or reply.kind != ":" or int(reply.data) != receivers:
        raise ModelError("%s to %r: the runner counted %d receivers (%d of them the publisher), "
                         "redis-server's reply is %r" % (name.decode(), channel, receivers, own,
                                                         reply))
    return ([(own, function, part)] if own else []) + [_reply_part(args, answer.in_exec)]


def plan(args, queued, everyone, me, reading):
    """The Answer of `args` sent on connection `me`, an index into `everyone` (the connections'
    Subscriptions, updated here); `queued`: EXEC's queued commands (None for any other command);
    `reading`: redis-server's Reading of the command's own connection."""
    first = reading.value(0)
    if queued is not None and first is not None and first.kind == "*" and first.data is not None:
        if len(first.data) != len(queued):
            raise ModelError("EXEC's array counts %d commands, the runner queued %d" % (
                len(first.data), len(queued)))
        # Elements past the array's count are the values read after it.
        answer = Answer(True)
        commands = queued
        inside = first.data

        def element(i):
            return inside[i] if i < len(inside) else reading.value(i - len(inside) + 1)
    else:
        answer = Answer(False)
        commands = [args]
        element = reading.value
    at = 0
    for command in commands:
        value = element(at)
        name = command[0].lower()
        ran = value is not None and value.kind not in "-!" and not (
            value.kind == "+" and value.data == b"QUEUED")
        if ran and name in SUBSCRIBING:
            parts = [_confirmations(command, everyone[me], element, at)]
        elif ran and name in PUBLISHING:
            parts = _publication(command, everyone, me, element, at, answer)
        else:
            if ran and name == b"reset":
                everyone[me].clear()
            parts = [_reply_part(command, answer.in_exec)]
        answer.parts += parts
        at += sum(count for count, _, _ in parts)
    return answer


class Reading:
    """The values one server sent on one connection for one command, read when first asked for.
    values: each a resp.Value, or the bytes the connection gives for a missing one (CLOSED,
    NO_REPLY); raws: the bytes of each."""

    def __init__(self, connection):
        self.connection = connection
        self.values = []
        self.raws = []

    def value(self, i):
        """The i-th value (a resp.Value), or None if it did not come."""
        while len(self.values) <= i:
            raw, value = self.connection.receive()
            self.raws.append(raw)
            self.values.append(raw if value is None else value)
        value = self.values[i]
        return value if isinstance(value, Value) else None

    def read(self, count):
        for i in range(count):
            self.value(i)
        return self

    def read_like(self, other):
        """Reads as many values as `other` holds, but stops after one that differs from
        `other`'s in kind or length: the values after it would not come, or mean other things."""
        for i, expected in enumerate(other.values):
            value = self.value(i)
            if not isinstance(expected, Value) or value is None or value.kind != expected.kind \
                    or _length(value) != _length(expected):
                break
        return self


def _length(value):
    return len(value.data) if value.kind in "*>~%|" and value.data is not None else None


def form(parts, reading, in_exec=False):
    """(bytes, note) compared of the values `reading` holds, read as `parts` say: each part
    normalised unless one of its values is missing or an error (errors are never normalised),
    then serialised. in_exec: the values are EXEC's elements after its array's header (as
    plan() read them), when the first value is an array."""
    values = list(reading.values)
    header = b""
    if in_exec and values and isinstance(values[0], Value) and values[0].kind == "*" and \
            values[0].data is not None:
        header = b"*%d\r\n" % len(values[0].data)
        values = values[0].data + values[1:]
    out = [header]
    notes = []
    at = 0
    for count, normaliser, note in parts:
        run = values[at:at + count]
        at += count
        if normaliser is not None and len(run) == count and all(
                isinstance(value, Value) and value.kind not in "-!" for value in run):
            run = normaliser(run)
            notes.append(note)
        out += [serialise(value) if isinstance(value, Value) else value for value in run]
    out += [serialise(value) if isinstance(value, Value) else value for value in values[at:]]
    return b"".join(out), "; ".join(dict.fromkeys(notes)) or None
