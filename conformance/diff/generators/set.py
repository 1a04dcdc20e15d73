"""Random arguments for the set commands (Redis group "set").

Members come from a small pool of integers and words, so that sets collide, convert from intset
to hashtable and empty out. What a hashtable's order or a random draw decides stays out of the
comparison: SMEMBERS, SINTER, SUNION, SDIFF and the whole-set draws are compared as sets
(normalise.py), SSCAN only as whole iterations (cursor 0 with a COUNT that covers the set), and
SRANDMEMBER and SPOP only where Redis's answer is not random: counts that take the whole set, the
errors, and a missing key.
"""

MEMBERS = [b"0", b"1", b"2", b"7", b"-3", b"100000", b"9223372036854775807", b"a", b"b", b"word",
           b"", b"01", b"-0", b"1.5", b"\x00m\xff"]


def _member(gen):
    return gen.pick(MEMBERS) if gen.chance(0.95) else gen.value()[:64]


def _members(gen, count_max=5):
    return [_member(gen) for _ in range(gen.rng.randint(1, count_max))]


def _arity_or(gen, name, args, count_min, count_max):
    """`args` most of the time, else the command with a wrong number of arguments."""
    if gen.chance(0.96):
        return args
    return [gen.token(name)] + gen.keys(count_min, count_max)[:count_max]


def sadd(gen):
    return _arity_or(gen, "sadd", [gen.token("sadd"), gen.key()] + _members(gen, 6), 0, 1)


def srem(gen):
    return _arity_or(gen, "srem", [gen.token("srem"), gen.key()] + _members(gen, 3), 0, 1)


def scard(gen):
    return _arity_or(gen, "scard", [gen.token("scard"), gen.key()], 0, 0)


def sismember(gen):
    return _arity_or(gen, "sismember", [gen.token("sismember"), gen.key(), _member(gen)], 0, 1)


def smismember(gen):
    return _arity_or(gen, "smismember", [gen.token("smismember"), gen.key()] + _members(gen, 4),
                     0, 1)


def smembers(gen):
    return _arity_or(gen, "smembers", [gen.token("smembers"), gen.key()], 0, 0)


def smove(gen):
    return _arity_or(gen, "smove", [gen.token("smove"), gen.key(), gen.key(), _member(gen)], 0, 2)


def _whole_count(gen):
    """A count that takes every member (or none), or one that is no count."""
    return gen.pick([b"0", b"1000", b"100000", b"9223372036854775807", b"abc", b"", b"1.5",
                     b"-9223372036854775808", b"01000"])


def srandmember(gen):
    args = [gen.token("srandmember"), gen.key(), _whole_count(gen)]
    if gen.chance(0.05):
        args.append(b"1")  # too many arguments: a syntax error
    return args


def spop(gen):
    args = [gen.token("spop"), gen.key(), gen.pick([b"0", b"1000", b"-1", b"abc", b"",
                                                     b"9223372036854775807"])]
    if gen.chance(0.05):
        args.append(b"1")
    return args


def _set_keys(gen):
    return gen.keys(1, 4)


def sinter(gen):
    return [gen.token("sinter")] + _set_keys(gen)


def sunion(gen):
    return [gen.token("sunion")] + _set_keys(gen)


def sdiff(gen):
    return [gen.token("sdiff")] + _set_keys(gen)


def sinterstore(gen):
    return _arity_or(gen, "sinterstore", [gen.token("sinterstore"), gen.key()] + _set_keys(gen),
                     0, 1)


def sunionstore(gen):
    return _arity_or(gen, "sunionstore", [gen.token("sunionstore"), gen.key()] + _set_keys(gen),
                     0, 1)


def sdiffstore(gen):
    return _arity_or(gen, "sdiffstore", [gen.token("sdiffstore"), gen.key()] + _set_keys(gen),
                     0, 1)


def sintercard(gen):
    keys = _set_keys(gen)
    count = b"%d" % len(keys)
    if gen.chance(0.1):
        count = gen.pick([b"0", b"-1", b"abc", b"%d" % (len(keys) + 1), b""])
    args = [gen.token("sintercard"), count] + keys
    if gen.chance(0.4):
        args += [gen.token("LIMIT"), gen.integer_arg(lambda: gen.rng.randint(0, 4))]
    if gen.chance(0.05):
        args.append(gen.pick([gen.token("LIMIT"), gen.junk_word()]))
    return args


def sscan(gen):
    """Whole iterations only (cursor 0, COUNT past any set's size), and the errors."""
    cursor = b"0" if gen.chance(0.9) else gen.pick([b"abc", b" 1", b"-", b"1.0", b""])
    args = [gen.token("sscan"), gen.key(), cursor, gen.token("COUNT"), b"1000"]
    roll = gen.rng.random()
    if roll < 0.35:
        args += [gen.token("MATCH"), gen.pick([b"*", b"[a-c]*", b"1*", b"*o*", b""])]
    elif roll < 0.45:
        args += [gen.token("COUNT"), gen.pick([b"0", b"-1", b"abc"])]
    elif roll < 0.5:
        args += [gen.token(gen.pick(["MATCH", "COUNT", "TYPE"]))]
    elif roll < 0.55:
        args += [gen.token("TYPE"), b"set"]
    return args


GENERATORS = {
    "sadd": (4, sadd),
    "srem": (2, srem),
    "scard": (1, scard),
    "sismember": (1, sismember),
    "smismember": (1, smismember),
    "smembers": (1.5, smembers),
    "smove": (1.5, smove),
    "srandmember": (0.7, srandmember),
    "spop": (0.7, spop),
    "sinter": (1, sinter),
    "sintercard": (1, sintercard),
    "sinterstore": (1, sinterstore),
    "sunion": (1, sunion),
    "sunionstore": (1, sunionstore),
    "sdiff": (1, sdiff),
    "sdiffstore": (1, sdiffstore),
    "sscan": (1, sscan),
}
