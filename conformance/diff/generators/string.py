"""Random arguments for the string commands (Redis group "string")."""

from .common import FUTURE_UNIX_S


def get(gen):
    if gen.chance(0.97):
        return [gen.token("get"), gen.key()]
    return [gen.token("get")] + gen.keys(2, 3)  # wrong arity


def _expiry(gen):
    """One SET expiry option, mostly valid. Relative times are long, absolute ones far in the
    future, so that no key expires during a run: Redis removes an expired key in the background
    (its active expiry cycle) some milliseconds after its time, so a key that expires during a run
    (even one set with a time already past, which SET accepts) makes DBSIZE and INFO keyspace
    depend on timing."""
    option = gen.pick(["EX", "PX", "EXAT", "PXAT", "KEEPTTL"])
    if option == "KEEPTTL":
        return [gen.token(option)]
    scale = 1000 if option in ("PX", "PXAT") else 1
    if option in ("EX", "PX"):
        amount = gen.integer_arg(lambda: gen.rng.randint(1000, 10 ** 7) * scale)
    else:
        amount = gen.integer_arg(lambda: gen.pick(FUTURE_UNIX_S) * scale)
    return [gen.token(option), amount]


def set_(gen):
    args = [gen.token("set"), gen.key(), gen.value()]
    if gen.chance(0.05):
        return args[:gen.rng.randint(1, 2)]  # wrong arity
    options = []
    for _ in range(gen.weighted([(40, 0), (35, 1), (18, 2), (7, 3)])):
        roll = gen.rng.random()
        if roll < 0.4:
            options += _expiry(gen)
        elif roll < 0.6:
            options.append(gen.token(gen.pick(["NX", "XX"])))
        elif roll < 0.8:
            options.append(gen.token("GET"))
        elif roll < 0.93:
            options.append(gen.token(gen.pick(["EX", "PX", "EXAT", "PXAT"])))  # missing amount
        else:
            options.append(gen.junk_word())
    return args + options


def _arity_or(gen, name, args, count_min, count_max):
    """`args` most of the time, else the command with a wrong number of arguments."""
    if gen.chance(0.96):
        return args
    return [gen.token(name)] + gen.keys(count_min, count_max)


def setnx(gen):
    return _arity_or(gen, "setnx", [gen.token("setnx"), gen.key(), gen.value()], 3, 4)


def _setex_like(gen, name, scale):
    amount = gen.integer_arg(lambda: gen.rng.randint(1000, 10 ** 6) * scale)
    return _arity_or(gen, name, [gen.token(name), gen.key(), amount, gen.value()], 1, 2)


def setex(gen):
    return _setex_like(gen, "setex", 1)


def psetex(gen):
    return _setex_like(gen, "psetex", 1000)


def getex(gen):
    args = [gen.token("getex"), gen.key()]
    roll = gen.rng.random()
    if roll < 0.3:
        return args
    if roll < 0.5:
        return args + [gen.token("PERSIST")]
    if roll < 0.85:
        option = _expiry(gen)
        return args + (option if option[0].upper() != b"KEEPTTL" else [gen.token("PERSIST")])
    return args + [gen.token(gen.pick(["EX", "PX", "PERSIST", "KEEPTTL"])), gen.junk_word()]


def getdel(gen):
    return _arity_or(gen, "getdel", [gen.token("getdel"), gen.key()], 2, 3)


def getset(gen):
    return _arity_or(gen, "getset", [gen.token("getset"), gen.key(), gen.value()], 1, 1)


def mget(gen):
    if gen.chance(0.03):
        return [gen.token("mget")]
    return [gen.token("mget")] + gen.keys(1, 6)


def _mset_like(gen, name):
    args = [gen.token(name)]
    for _ in range(gen.rng.randint(1, 4)):
        args += [gen.key(), gen.value()]
    if gen.chance(0.05):
        args.append(gen.key())  # an odd count
    return args


def mset(gen):
    return _mset_like(gen, "mset")


def msetnx(gen):
    return _mset_like(gen, "msetnx")


def append(gen):
    return _arity_or(gen, "append", [gen.token("append"), gen.key(), gen.value()], 1, 1)


def strlen(gen):
    return _arity_or(gen, "strlen", [gen.token("strlen"), gen.key()], 2, 3)


def _range_index(gen):
    return gen.integer_arg(lambda: gen.rng.randint(-60, 60))


def getrange(gen, name="getrange"):
    return _arity_or(gen, name, [gen.token(name), gen.key(), _range_index(gen), _range_index(gen)],
                     1, 2)


def substr(gen):
    return getrange(gen, "substr")


def setrange(gen):
    # Offsets stay far below 512 MB except for the refused ones: a valid huge offset would make
    # both servers allocate it.
    offset = gen.weighted([(80, b"%d" % gen.rng.randint(0, 200)),
                           (8, b"%d" % gen.rng.randint(-10, -1)),
                           (6, b"536870912"), (6, gen.pick([b"abc", b"1.5", b""]))])
    value = gen.value() if gen.chance(0.8) else b""
    return _arity_or(gen, "setrange", [gen.token("setrange"), gen.key(), offset, value], 1, 2)


def incr(gen):
    return _arity_or(gen, "incr", [gen.token("incr"), gen.key()], 2, 3)


def decr(gen):
    return _arity_or(gen, "decr", [gen.token("decr"), gen.key()], 2, 3)


def incrby(gen, name="incrby"):
    amount = gen.integer_arg(lambda: gen.rng.randint(-1000, 1000))
    return _arity_or(gen, name, [gen.token(name), gen.key(), amount], 1, 1)


def decrby(gen):
    return incrby(gen, "decrby")


def incrbyfloat(gen):
    amount = gen.weighted([(60, b"%g" % (gen.rng.random() * 200 - 100)),
                           (20, b"%d" % gen.integer()),
                           (20, gen.pick([b"inf", b"-inf", b"nan", b"1e308", b"abc", b"",
                                          b"0x10", b"1.5e", b"3.0e3"]))])
    return _arity_or(gen, "incrbyfloat", [gen.token("incrbyfloat"), gen.key(), amount], 1, 1)


def lcs(gen):
    args = [gen.token("lcs"), gen.key(), gen.key()]
    for _ in range(gen.weighted([(40, 0), (35, 1), (20, 2), (5, 3)])):
        roll = gen.rng.random()
        if roll < 0.35:
            args.append(gen.token("LEN"))
        elif roll < 0.6:
            args.append(gen.token("IDX"))
        elif roll < 0.85:
            args += [gen.token("MINMATCHLEN"), gen.integer_arg(lambda: gen.rng.randint(0, 5))]
        elif roll < 0.95:
            args.append(gen.token("WITHMATCHLEN"))
        else:
            args.append(gen.junk_word())
    return _arity_or(gen, "lcs", args, 1, 1)


GENERATORS = {
    "get": (6, get),
    "set": (8, set_),
    "setnx": (2, setnx),
    "setex": (2, setex),
    "psetex": (2, psetex),
    "getex": (2, getex),
    "getdel": (2, getdel),
    "getset": (2, getset),
    "mget": (3, mget),
    "mset": (3, mset),
    "msetnx": (2, msetnx),
    "append": (3, append),
    "strlen": (2, strlen),
    "getrange": (2, getrange),
    "substr": (1, substr),
    "setrange": (2, setrange),
    "incr": (3, incr),
    "decr": (2, decr),
    "incrby": (2, incrby),
    "decrby": (2, decrby),
    "incrbyfloat": (2, incrbyfloat),
    "lcs": (2, lcs),
}
