"""Random arguments for the hash commands (Redis group "hash").

Fields come from a small pool, values are at most 64 bytes, so that the shared keys (k0..k4) stay
listpacks, whose replies come in insertion order and are compared byte for byte. Hashtables are
left to the case file (conformance/cases/hash.txt, keys named ht*) and the simulator: a key of
their own here would be a tenth key in the shared space, past the page of the generic family's
SCAN without COUNT, whose cursor is compared. What a random draw decides stays out:
HRANDFIELD is sent with counts that take the whole hash (or none) and with its errors, HSCAN as
whole iterations (cursor 0, a COUNT past any hash's size).
"""

FIELDS = [b"a", b"b", b"c", b"name", b"", b"x y", b"01", b"-0", b"n", b"\x00f\xff", b"1", b"f2"]
NUMBERS = [b"0", b"7", b"-3", b"007", b"9223372036854775807", b"-9223372036854775808", b"1.5",
           b"1e3", b" 1", b"abc", b"10.50", b"0x10"]


def _field(gen):
    return gen.pick(FIELDS) if gen.chance(0.95) else gen.value()[:20]


def _value(gen):
    if gen.chance(0.3):
        return gen.pick(NUMBERS)
    return gen.value()[:64]


def _key(gen):
    return gen.key()


def _arity_or(gen, name, args, count_min, count_max):
    if gen.chance(0.96):
        return args
    return [gen.token(name)] + gen.keys(count_min, count_max)[:count_max]


def _pairs(gen, key, count_max=4):
    pairs = []
    for _ in range(gen.rng.randint(1, count_max)):
        pairs += [_field(gen), _value(gen)]
    return pairs


def hset(gen):
    key = _key(gen)
    args = [gen.token("hset"), key] + _pairs(gen, key)
    if gen.chance(0.04):
        args.append(_field(gen))  # a field without its value: the arity error
    return _arity_or(gen, "hset", args, 0, 2)


def hmset(gen):
    key = _key(gen)
    args = [gen.token("hmset"), key] + _pairs(gen, key)
    if gen.chance(0.04):
        args.append(_field(gen))
    return _arity_or(gen, "hmset", args, 0, 2)


def hsetnx(gen):
    key = _key(gen)
    return _arity_or(gen, "hsetnx",
                     [gen.token("hsetnx"), key, _field(gen), _value(gen)],
                     0, 2)


def hget(gen):
    return _arity_or(gen, "hget", [gen.token("hget"), _key(gen), _field(gen)], 0, 1)


def hmget(gen):
    return _arity_or(gen, "hmget", [gen.token("hmget"), _key(gen)] +
                     [_field(gen) for _ in range(gen.rng.randint(1, 4))], 0, 1)


def hdel(gen):
    return _arity_or(gen, "hdel", [gen.token("hdel"), _key(gen)] +
                     [_field(gen) for _ in range(gen.rng.randint(1, 3))], 0, 1)


def hlen(gen):
    return _arity_or(gen, "hlen", [gen.token("hlen"), _key(gen)], 0, 0)


def hstrlen(gen):
    return _arity_or(gen, "hstrlen", [gen.token("hstrlen"), _key(gen), _field(gen)], 0, 1)


def hexists(gen):
    return _arity_or(gen, "hexists", [gen.token("hexists"), _key(gen), _field(gen)], 0, 1)


def hkeys(gen):
    return _arity_or(gen, "hkeys", [gen.token("hkeys"), _key(gen)], 0, 0)


def hvals(gen):
    return _arity_or(gen, "hvals", [gen.token("hvals"), _key(gen)], 0, 0)


def hgetall(gen):
    return _arity_or(gen, "hgetall", [gen.token("hgetall"), _key(gen)], 0, 0)


def hincrby(gen):
    increment = gen.integer_arg(lambda: gen.rng.randint(-5, 5))
    return _arity_or(gen, "hincrby", [gen.token("hincrby"), _key(gen), _field(gen), increment],
                     0, 2)


def hincrbyfloat(gen):
    increment = gen.pick([b"1.5", b"-0.25", b"3", b"1e3", b"x", b"inf", b"-inf", b"", b"0x10",
                          b"5.0e3", b"1e30"])
    return _arity_or(gen, "hincrbyfloat",
                     [gen.token("hincrbyfloat"), _key(gen), _field(gen), increment], 0, 2)


def hrandfield(gen):
    count = gen.pick([b"0", b"1000", b"9223372036854775807", b"abc", b"", b"1.5",
                      b"-9223372036854775808", b"01000", b"4611686018427387904"])
    args = [gen.token("hrandfield"), _key(gen), count]
    roll = gen.rng.random()
    if roll < 0.4:
        args.append(gen.token("WITHVALUES"))
    elif roll < 0.45:
        args += [gen.token("WITHVALUES"), b"1"]
    elif roll < 0.5:
        args.append(gen.junk_word())
    return args


def hscan(gen):
    cursor = b"0" if gen.chance(0.9) else gen.pick([b"abc", b" 1", b"-", b"1.0", b""])
    args = [gen.token("hscan"), _key(gen), cursor, gen.token("COUNT"), b"1000"]
    roll = gen.rng.random()
    if roll < 0.35:
        args += [gen.token("MATCH"), gen.pick([b"*", b"[a-c]*", b"f*", b"*a*", b""])]
    elif roll < 0.45:
        args += [gen.token("COUNT"), gen.pick([b"0", b"-1", b"abc"])]
    elif roll < 0.5:
        args += [gen.token(gen.pick(["MATCH", "COUNT", "TYPE"]))]
    return args


GENERATORS = {
    "hset": (3, hset),
    "hmset": (0.7, hmset),
    "hsetnx": (1, hsetnx),
    "hget": (1.5, hget),
    "hmget": (1, hmget),
    "hdel": (1.5, hdel),
    "hlen": (1, hlen),
    "hstrlen": (1, hstrlen),
    "hexists": (1, hexists),
    "hkeys": (1, hkeys),
    "hvals": (1, hvals),
    "hgetall": (1.5, hgetall),
    "hincrby": (1.5, hincrby),
    "hincrbyfloat": (1, hincrbyfloat),
    "hrandfield": (0.7, hrandfield),
    "hscan": (1, hscan),
}


# Hash field expiry (Redis 7.4) and HGETEX, HSETEX, HGETDEL (Redis 8.0): the 7.0 reference server
# answers "unknown command", so the random run leaves them out (common.NEWER_THAN_REFERENCE);
# engine/commands/cmd_hash_ttl_test.cc checks their documented replies. The functions below give
# `conformance/run --only NAME` something to send to a newer redis-server.
def _fields_block(gen):
    fields = [_field(gen) for _ in range(gen.rng.randint(1, 3))]
    count = str(len(fields)).encode()
    if gen.chance(0.05):
        count = gen.pick([b"0", b"-1", b"abc", str(len(fields) + 1).encode()])
    return [gen.token("FIELDS"), count] + fields


def _hexpire(name, absolute_ms):
    def generate(gen):
        if absolute_ms:
            when = str(gen.rng.choice([1, 1700000000000, 4102444800000])).encode()
        else:
            when = str(gen.rng.randint(0, 1000)).encode()
        if gen.chance(0.03):
            when = gen.pick([b"-1", b"abc", b"99999999999999999"])
        args = [gen.token(name), _key(gen), when]
        if gen.chance(0.4):
            args.append(gen.token(gen.pick(["NX", "XX", "GT", "LT"])))
        return args + _fields_block(gen)
    return generate


def _fields_command(name):
    return lambda gen: [gen.token(name), _key(gen)] + _fields_block(gen)


def hgetex(gen):
    args = [gen.token("hgetex"), _key(gen)]
    roll = gen.rng.random()
    if roll < 0.6:
        args += [gen.token(gen.pick(["EX", "PX", "EXAT", "PXAT"])),
                 str(gen.rng.randint(0, 1000)).encode()]
    elif roll < 0.8:
        args.append(gen.token("PERSIST"))
    return args + _fields_block(gen)


def hsetex(gen):
    key = _key(gen)
    args = [gen.token("hsetex"), key]
    if gen.chance(0.3):
        args.append(gen.token(gen.pick(["FNX", "FXX"])))
    roll = gen.rng.random()
    if roll < 0.6:
        args += [gen.token(gen.pick(["EX", "PX", "EXAT", "PXAT"])),
                 str(gen.rng.randint(0, 1000)).encode()]
    elif roll < 0.7:
        args.append(gen.token("KEEPTTL"))
    pairs = _pairs(gen, key)
    return args + [gen.token("FIELDS"), str(len(pairs) // 2).encode()] + pairs


NEWER_REASON = ("a Redis 7.4/8.0 command, absent from the 7.0 reference server (its documented "
                "replies are checked by cmd_hash_ttl_test.cc)")

NOT_GENERATED = {
    "hexpire": (NEWER_REASON, _hexpire("hexpire", False)),
    "hpexpire": (NEWER_REASON, _hexpire("hpexpire", False)),
    "hexpireat": (NEWER_REASON, _hexpire("hexpireat", True)),
    "hpexpireat": (NEWER_REASON, _hexpire("hpexpireat", True)),
    "httl": (NEWER_REASON, _fields_command("httl")),
    "hpttl": (NEWER_REASON, _fields_command("hpttl")),
    "hexpiretime": (NEWER_REASON, _fields_command("hexpiretime")),
    "hpexpiretime": (NEWER_REASON, _fields_command("hpexpiretime")),
    "hpersist": (NEWER_REASON, _fields_command("hpersist")),
    "hgetdel": (NEWER_REASON, _fields_command("hgetdel")),
    "hgetex": (NEWER_REASON, hgetex),
    "hsetex": (NEWER_REASON, hsetex),
}
