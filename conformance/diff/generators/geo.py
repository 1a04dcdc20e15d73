"""Random arguments for the geo commands (Redis group "geo").

Points cluster around one place with four decimals (every point its own 52-bit cell, so that
searches find several members at distinct distances) and now and then lie anywhere, on the limits
or outside them. Members come from a small pool, so that points move, collide with the
sorted-set family's members (whose scores decode to positions too) and keys of other types.
Searches draw radii and boxes from a metre to the whole Earth with every option, in every
argument order GEORADIUS and GEOSEARCH accept, and now and then a bad argument.
"""

MEMBERS = [b"a", b"b", b"c", b"d", b"word", b"", b"01", b"x y", b"\x00m\xff", b"7", b"city"]
UNITS = [b"m", b"km", b"ft", b"mi"]
BAD_NUMBERS = [b"x", b"nan", b" 1", b"", b"1e999", b"0x"]
EDGES = [(b"180", b"85.05112878"), (b"-180", b"-85.05112878"), (b"0", b"0"), (b"-0", b"-0"),
         (b"180.0001", b"0"), (b"0", b"85.06"), (b"179.9999", b"1"), (b"-179.9999", b"-1"),
         (b"inf", b"0"), (b"1", b"-inf")]


def _member(gen):
    return gen.pick(MEMBERS)


def _coordinate(gen, center, spread):
    return b"%.4f" % (center + gen.rng.uniform(-spread, spread))


def _point(gen):
    roll = gen.rng.random()
    if roll < 0.8:
        return [_coordinate(gen, 10, 0.5), _coordinate(gen, 45, 0.5)]
    if roll < 0.9:
        return [_coordinate(gen, 0, 180), _coordinate(gen, 0, 85)]
    if roll < 0.97:
        return list(gen.pick(EDGES))
    return [gen.pick(BAD_NUMBERS), _coordinate(gen, 45, 1)]


def _unit(gen):
    if gen.chance(0.97):
        return gen.token(gen.pick(UNITS))
    return gen.pick([b"yd", b"", b"kilometers"])


def _length(gen):
    roll = gen.rng.random()
    if roll < 0.85:
        return b"%d" % gen.weighted([(6, gen.rng.randint(1, 150)), (2, gen.rng.randint(150, 5000)),
                                     (1, 0), (1, gen.rng.randint(5000, 40000))])
    if roll < 0.95:
        return gen.pick([b"0.5", b"1e-3", b"20037", b"inf"])
    return gen.pick(BAD_NUMBERS + [b"-1"])


def _options(gen, store_words, search=False):
    args = []
    for _ in range(gen.rng.randint(0, 4)):
        word = gen.pick([b"WITHDIST", b"WITHHASH", b"WITHCOORD", b"ASC", b"DESC", b"ANY",
                         b"COUNT"] + store_words)
        args.append(gen.token(word))
        if word == b"COUNT":
            args.append(gen.integer_arg(lambda: gen.rng.randint(1, 5)))
        elif word in (b"STORE", b"STOREDIST") and not search:
            args.append(gen.key())
    if gen.chance(0.03):
        args.append(gen.junk_word())
    return args


def geoadd(gen):
    args = [gen.token("geoadd"), gen.key()]
    for _ in range(gen.rng.randint(0, 2)):
        if gen.chance(0.4):
            args.append(gen.token(gen.pick([b"NX", b"XX", b"CH"])))
    for _ in range(gen.rng.randint(1, 4)):
        args += _point(gen) + [_member(gen)]
    if gen.chance(0.03):
        args.pop()
    return args


def geopos(gen):
    return [gen.token("geopos"), gen.key()] + [_member(gen) for _ in range(gen.rng.randint(0, 3))]


def geohash(gen):
    return [gen.token("geohash"), gen.key()] + [_member(gen) for _ in range(gen.rng.randint(0, 3))]


def geodist(gen):
    args = [gen.token("geodist"), gen.key(), _member(gen), _member(gen)]
    if gen.chance(0.6):
        args.append(_unit(gen))
    if gen.chance(0.02):
        args.append(b"extra")
    return args


def _georadius(name, store):
    def generate(gen):
        args = [gen.token(name), gen.key()] + _point(gen) + [_length(gen), _unit(gen)]
        return args + _options(gen, [b"STORE", b"STOREDIST"] if store or gen.chance(0.1) else [])
    return generate


def _georadiusbymember(name, store):
    def generate(gen):
        args = [gen.token(name), gen.key(), _member(gen), _length(gen), _unit(gen)]
        return args + _options(gen, [b"STORE", b"STOREDIST"] if store or gen.chance(0.1) else [])
    return generate


def _search_args(gen):
    parts = []
    if gen.chance(0.97):
        if gen.chance(0.5):
            parts.append([gen.token("FROMMEMBER"), _member(gen)])
        else:
            parts.append([gen.token("FROMLONLAT")] + _point(gen))
    if gen.chance(0.97):
        if gen.chance(0.5):
            parts.append([gen.token("BYRADIUS"), _length(gen), _unit(gen)])
        else:
            parts.append([gen.token("BYBOX"), _length(gen), _length(gen), _unit(gen)])
    if gen.chance(0.2):
        gen.rng.shuffle(parts)
    return [word for part in parts for word in part]


def geosearch(gen):
    return ([gen.token("geosearch"), gen.key()] + _search_args(gen) +
            _options(gen, [], search=True))


def geosearchstore(gen):
    args = [gen.token("geosearchstore"), gen.key(), gen.key()] + _search_args(gen)
    return args + _options(gen, [b"STOREDIST"], search=True)


GENERATORS = {
    "geoadd": (3, geoadd),
    "geopos": (0.8, geopos),
    "geohash": (0.8, geohash),
    "geodist": (0.8, geodist),
    "georadius": (1, _georadius("georadius", True)),
    "georadius_ro": (0.5, _georadius("georadius_ro", False)),
    "georadiusbymember": (0.8, _georadiusbymember("georadiusbymember", True)),
    "georadiusbymember_ro": (0.5, _georadiusbymember("georadiusbymember_ro", False)),
    "geosearch": (1.5, geosearch),
    "geosearchstore": (1, geosearchstore),
}
