"""Random arguments for the list commands (Redis group "list").

Lists share the key space with the other families, so list commands meet strings (WRONGTYPE)
and the string and generic commands meet lists. Elements repeat often (LREM, LPOS and LINSERT
need matches) and include integers at the listpack encodings' edges."""

from .common import INT64_MAX, INT64_MIN

# Integers at the edges of the listpack's encodings (7-bit, 13-bit, 16, 24, 32 and 64 bits),
# and texts that look like integers but are stored as strings.
EDGE_ELEMENTS = [b"0", b"127", b"128", b"-1", b"4095", b"-4096", b"4096", b"32767", b"-32769",
                 b"8388607", b"-8388609", b"2147483648", b"%d" % INT64_MAX, b"%d" % INT64_MIN,
                 b"007", b"-0", b"1.5", b" 1", b""]


def _element(gen):
    roll = gen.rng.random()
    if roll < 0.5:
        return gen.pick([b"a", b"b", b"c", b"d"])
    if roll < 0.7:
        return gen.pick(EDGE_ELEMENTS)
    return gen.value()


def _index(gen):
    return gen.integer_arg(lambda: gen.rng.randint(-8, 8))


def _end(gen):
    if gen.chance(0.04):
        return gen.junk_word()
    return gen.token(gen.pick(["LEFT", "RIGHT"]))


def _arity_or(gen, name, args, count_min, count_max):
    if gen.chance(0.96):
        return args
    return [gen.token(name)] + gen.keys(count_min, count_max)


def _push(name):
    def generate(gen):
        count = gen.weighted([(10, 0), (60, 1), (25, 3), (5, 30)])
        args = [gen.token(name), gen.key()] + [_element(gen) for _ in range(count)]
        return args if count > 0 or gen.chance(0.5) else args[:1]
    return generate


def _pop(name):
    def generate(gen):
        args = [gen.token(name), gen.key()]
        roll = gen.rng.random()
        if roll < 0.5:
            return args
        if roll < 0.95:
            return args + [gen.integer_arg(lambda: gen.rng.randint(0, 10))]
        return args + [b"1", b"2"]  # one argument too many
    return generate


def llen(gen):
    return _arity_or(gen, "llen", [gen.token("llen"), gen.key()], 0, 0)


def lindex(gen):
    return _arity_or(gen, "lindex", [gen.token("lindex"), gen.key(), _index(gen)], 1, 1)


def lrange(gen):
    return _arity_or(gen, "lrange", [gen.token("lrange"), gen.key(), _index(gen), _index(gen)],
                     1, 2)


def ltrim(gen):
    return _arity_or(gen, "ltrim", [gen.token("ltrim"), gen.key(), _index(gen), _index(gen)],
                     1, 2)


def lset(gen):
    return _arity_or(gen, "lset", [gen.token("lset"), gen.key(), _index(gen), _element(gen)],
                     1, 2)


def linsert(gen):
    where = gen.token(gen.pick(["BEFORE", "AFTER"])) if gen.chance(0.95) else gen.junk_word()
    return _arity_or(gen, "linsert",
                     [gen.token("linsert"), gen.key(), where, _element(gen), _element(gen)], 1, 3)


def lrem(gen):
    count = gen.integer_arg(lambda: gen.rng.randint(-3, 3))
    return _arity_or(gen, "lrem", [gen.token("lrem"), gen.key(), count, _element(gen)], 1, 2)


def lpos(gen):
    args = [gen.token("lpos"), gen.key(), _element(gen)]
    for _ in range(gen.weighted([(40, 0), (35, 1), (20, 2), (5, 3)])):
        option = gen.pick(["RANK", "COUNT", "MAXLEN", "junk"])
        if option == "junk":
            args.append(gen.junk_word())
        elif option == "RANK":
            args += [gen.token(option), gen.integer_arg(lambda: gen.rng.choice([-3, -1, 1, 2, 5]))]
        else:
            args += [gen.token(option), gen.integer_arg(lambda: gen.rng.randint(0, 5))]
    if gen.chance(0.03):
        args.append(gen.token("RANK"))  # an option without its value
    return args


def lmove(gen):
    return _arity_or(gen, "lmove",
                     [gen.token("lmove"), gen.key(), gen.key(), _end(gen), _end(gen)], 1, 3)


def rpoplpush(gen):
    return _arity_or(gen, "rpoplpush", [gen.token("rpoplpush"), gen.key(), gen.key()], 1, 1)


def lmpop(gen):
    keys = gen.keys(1, 3)
    numkeys = b"%d" % len(keys) if gen.chance(0.85) else gen.integer_arg(lambda: len(keys) + 1)
    args = [gen.token("lmpop"), numkeys] + keys + [_end(gen)]
    if gen.chance(0.5):
        args += [gen.token("COUNT"), gen.integer_arg(lambda: gen.rng.randint(1, 6))]
    if gen.chance(0.03):
        args.append(gen.junk_word())
    return args


def block_timeout(gen):
    # Short enough that a command finding nothing times out at once on both servers (the runner
    # waits for each reply before it sends anything else, so nobody can serve it); now and then
    # a bad one.
    if gen.chance(0.08):
        return gen.rng.choice([b"-1", b"x", b"inf", b"-0.0001x"])
    return gen.rng.choice([b"0.01", b"0.02"])


def blocking_pop(name):
    def generate(gen):
        return [gen.token(name)] + gen.keys(1, 3) + [block_timeout(gen)]
    return generate


def blmove(gen):
    return [gen.token("blmove"), gen.key(), gen.key(), _end(gen), _end(gen), block_timeout(gen)]


def brpoplpush(gen):
    return [gen.token("brpoplpush"), gen.key(), gen.key(), block_timeout(gen)]


def blmpop(gen):
    args = lmpop(gen)
    return [gen.token("blmpop"), block_timeout(gen)] + args[1:]


GENERATORS = {
    "lpush": (4, _push("lpush")),
    "rpush": (4, _push("rpush")),
    "lpushx": (1, _push("lpushx")),
    "rpushx": (1, _push("rpushx")),
    "lpop": (2, _pop("lpop")),
    "rpop": (2, _pop("rpop")),
    "llen": (1, llen),
    "lindex": (2, lindex),
    "lrange": (3, lrange),
    "lset": (1, lset),
    "linsert": (1, linsert),
    "lrem": (1, lrem),
    "ltrim": (1, ltrim),
    "lpos": (2, lpos),
    "lmove": (1, lmove),
    "rpoplpush": (1, rpoplpush),
    "lmpop": (1, lmpop),
    "blpop": (1, blocking_pop("blpop")),
    "brpop": (1, blocking_pop("brpop")),
    "blmove": (0.5, blmove),
    "brpoplpush": (0.5, brpoplpush),
    "blmpop": (0.5, blmpop),
}
