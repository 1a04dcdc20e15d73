"""Random arguments for the generic key commands (Redis group "generic", and SWAPDB).

No key may expire during a run (see string._expiry): expiry times are far in the future, or not
in the future at all, which deletes the key within the command on both servers alike. TTL-like
replies and OBJECT IDLETIME read the clock and are normalised (normalise.py); SCAN is asked only
for whole iterations in one call (cursor 0, COUNT of at least 10 over at most 9 keys per database),
whose keys are compared as a set.
"""

from .common import FUTURE_UNIX_S, INT64_MAX, INT64_MIN, PAST_UNIX_S


def _arity_or(gen, name, args, count_min, count_max):
    """`args` most of the time, else the command with a wrong number of arguments."""
    if gen.chance(0.96):
        return args
    return gen.name(name) + gen.keys(count_min, count_max)


def del_(gen):
    if gen.chance(0.03):
        return [gen.token("del")]  # wrong arity
    return [gen.token("del")] + gen.keys(1, 4)


def unlink(gen):
    if gen.chance(0.03):
        return [gen.token("unlink")]
    return [gen.token("unlink")] + gen.keys(1, 4)


def exists(gen):
    if gen.chance(0.03):
        return [gen.token("exists")]  # wrong arity
    return [gen.token("exists")] + gen.keys(1, 5)


def touch(gen):
    if gen.chance(0.03):
        return [gen.token("touch")]
    return [gen.token("touch")] + gen.keys(1, 5)


def type_(gen):
    return _arity_or(gen, "type", [gen.token("type"), gen.key()], 2, 3)


# --- Expiry ----------------------------------------------------------------------------------

def _expire_options(gen):
    """NX, XX, GT and LT in any combination (the incompatible ones are errors), or a junk word."""
    if gen.chance(0.05):
        return [gen.junk_word()]
    return [gen.token(gen.pick(["NX", "XX", "GT", "LT"]))
            for _ in range(gen.weighted([(45, 0), (40, 1), (15, 2)]))]


def _not_in_the_future(gen, scale):
    """A time that is not after now on either server: it deletes the key at once."""
    return b"%d" % gen.pick([0, -1, -100, INT64_MIN // 1000 + 1] + [s * scale for s in PAST_UNIX_S])


def _expire_like(gen, name, relative, scale):
    roll = gen.rng.random()
    if roll < 0.6:
        if relative:
            amount = b"%d" % (gen.rng.randint(1000, 10 ** 7) * scale)
        else:
            amount = b"%d" % (gen.pick(FUTURE_UNIX_S) * scale)
    elif roll < 0.8:
        amount = (b"%d" % gen.pick([0, -1, -100, INT64_MIN // 1000 + 1]) if relative
                  else _not_in_the_future(gen, scale))
    elif roll < 0.9:
        # Overflow: seconds past LLONG_MAX ms, or a sum with the clock past it.
        amount = b"%d" % gen.pick([INT64_MAX // 1000 + 1, INT64_MAX, INT64_MIN])
    else:
        amount = gen.pick([b"abc", b"", b"1.5", b" 1", b"9223372036854775808"])
    return _arity_or(gen, name, [gen.token(name), gen.key(), amount] + _expire_options(gen), 1, 2)


def expire(gen):
    return _expire_like(gen, "expire", True, 1)


def pexpire(gen):
    return _expire_like(gen, "pexpire", True, 1000)


def expireat(gen):
    return _expire_like(gen, "expireat", False, 1)


def pexpireat(gen):
    return _expire_like(gen, "pexpireat", False, 1000)


def _key_only(gen, name):
    return _arity_or(gen, name, [gen.token(name), gen.key()], 2, 3)


def ttl(gen):
    return _key_only(gen, "ttl")


def pttl(gen):
    return _key_only(gen, "pttl")


def expiretime(gen):
    return _key_only(gen, "expiretime")


def pexpiretime(gen):
    return _key_only(gen, "pexpiretime")


def persist(gen):
    return _key_only(gen, "persist")


# --- Renaming, copying, moving ---------------------------------------------------------------

def rename(gen):
    return _arity_or(gen, "rename", [gen.token("rename"), gen.key(), gen.key()], 1, 1)


def renamenx(gen):
    return _arity_or(gen, "renamenx", [gen.token("renamenx"), gen.key(), gen.key()], 1, 1)


def copy(gen):
    args = [gen.token("copy"), gen.key(), gen.key()]
    for _ in range(gen.weighted([(40, 0), (35, 1), (20, 2), (5, 3)])):
        roll = gen.rng.random()
        if roll < 0.45:
            args += [gen.token("DB"), gen.db_index()]
        elif roll < 0.85:
            args.append(gen.token("REPLACE"))
        elif roll < 0.93:
            args.append(gen.token("DB"))  # missing index
        else:
            args.append(gen.junk_word())
    return _arity_or(gen, "copy", args, 1, 1)


def move(gen):
    return _arity_or(gen, "move", [gen.token("move"), gen.key(), gen.db_index()], 1, 1)


def swapdb(gen):
    return _arity_or(gen, "swapdb", [gen.token("swapdb"), gen.db_index(), gen.db_index()], 0, 1)


# --- Walks -----------------------------------------------------------------------------------

PATTERNS = [b"*", b"k*", b"k?", b"[k]0", b"*0", b"", b"\\k0", b"K*", b"*[0-2]", b"[^k]*", b"[",
            b"\\", b"{k}*", b"*\x00*", b"?*?"]


def keys(gen):
    return _arity_or(gen, "keys", [gen.token("keys"), gen.pick(PATTERNS)], 0, 2)


def scan(gen):
    """Whole iterations only: cursor 0 with COUNT of at least 10 (the default), so that both
    servers walk their whole table in one call; and the errors."""
    if gen.chance(0.1):
        cursor = gen.pick([b"abc", b" 1", b"-", b"+", b"0x1", b"18446744073709551616", b"1.0"])
    else:
        cursor = gen.pick([b"0", b"0", b"0", b"", b"00", b"+0", b"-0"])
    args = [gen.token("scan"), cursor]
    for _ in range(gen.weighted([(35, 0), (40, 1), (20, 2), (5, 3)])):
        roll = gen.rng.random()
        if roll < 0.35:
            args += [gen.token("MATCH"), gen.pick(PATTERNS)]
        elif roll < 0.65:
            args += [gen.token("COUNT"), gen.pick([b"10", b"20", b"100", b"1000", b"0", b"-1",
                                                   b"abc", b"9223372036854775807"])]
        elif roll < 0.9:
            args += [gen.token("TYPE"), gen.pick([b"string", b"STRING", b"list", b"hash", b"none",
                                                  b"nosuch", b""])]
        elif roll < 0.95:
            args.append(gen.token(gen.pick(["MATCH", "COUNT", "TYPE"])))  # missing value
        else:
            args.append(gen.junk_word())
    return args


def randomkey(gen):
    return [gen.token("randomkey")] + ([gen.value()] if gen.chance(0.03) else [])


# --- OBJECT ----------------------------------------------------------------------------------

def _object(gen, sub):
    args = gen.name("object|" + sub)
    if gen.chance(0.04):
        return args + ([] if gen.chance(0.5) else gen.keys(2, 2))  # wrong arity
    return args + [gen.key()]


def object_encoding(gen):
    return _object(gen, "encoding")


def object_refcount(gen):
    return _object(gen, "refcount")


def object_idletime(gen):
    return _object(gen, "idletime")


def object_freq(gen):
    return _object(gen, "freq")


def object_help(gen):
    return gen.name("object|help") + ([gen.value()] if gen.chance(0.05) else [])


GENERATORS = {
    "del": (3, del_),
    "unlink": (1, unlink),
    "exists": (4, exists),
    "touch": (1, touch),
    "type": (1, type_),
    "expire": (2, expire),
    "pexpire": (1, pexpire),
    "expireat": (1, expireat),
    "pexpireat": (1, pexpireat),
    "ttl": (1, ttl),
    "pttl": (1, pttl),
    "expiretime": (1, expiretime),
    "pexpiretime": (1, pexpiretime),
    "persist": (1, persist),
    "rename": (1, rename),
    "renamenx": (1, renamenx),
    "copy": (1.5, copy),
    "move": (1, move),
    "swapdb": (0.3, swapdb),
    "keys": (1, keys),
    "scan": (1.5, scan),
    "randomkey": (0.5, randomkey),
    "object|encoding": (1, object_encoding),
    "object|refcount": (1, object_refcount),
    "object|idletime": (0.5, object_idletime),
    "object|freq": (0.3, object_freq),
    "object|help": (0.1, object_help),
}
