"""Random arguments for the sorted-set commands (Redis group "sorted-set").

Members come from a small pool of words and numbers (none longer than zset-max-listpack-value,
and too few to pass zset-max-listpack-entries), so that sorted sets collide, empty out and stay
listpacks, whose every answer Redis fixes: lex ranges over mixed scores are its listpack walks,
which Keel follows (a skiplist's would depend on Redis's random levels; the case file covers
skiplists). Scores are at Redis's edges: integers, fractions, -0, inf, texts that are no number.
What a random draw decides stays out: ZRANDMEMBER only with counts that take the whole set, the
errors and a missing key; ZSCAN only as whole iterations.
"""

from .list import block_timeout  # the blocking commands' timeouts, as the list family draws them

MEMBERS = [b"a", b"b", b"c", b"d", b"word", b"", b"01", b"-0", b"1.5", b"x y", b"\x00m\xff",
           b"7", b"100000"]
SCORES = [b"0", b"1", b"2", b"-1", b"1.5", b"-0", b"0.1", b"inf", b"-inf", b"+inf", b"1e3",
          b"3", b"10", b"-2.5", b"1e-320", b"4503599627370497", b"5e18"]
BAD_SCORES = [b"x", b"nan", b" 1", b"", b"1e999", b"0x"]
SCORE_BOUNDS = [b"-inf", b"+inf", b"(1", b"(0", b"2", b"(", b"0", b"1.5", b"(-inf", b"10"]
LEX_BOUNDS = [b"-", b"+", b"[a", b"(b", b"[c", b"(word", b"[", b"(", b"[d", b"[1.5"]


def _member(gen):
    return gen.pick(MEMBERS)


def _score(gen):
    return gen.pick(SCORES) if gen.chance(0.95) else gen.pick(BAD_SCORES)


def _index(gen):
    return gen.integer_arg(lambda: gen.rng.randint(-6, 6))


def _pairs(gen, count_max):
    args = []
    for _ in range(gen.rng.randint(1, count_max)):
        args += [_score(gen), _member(gen)]
    return args


def _arity_or(gen, name, args, count_min, count_max):
    if gen.chance(0.96):
        return args
    return [gen.token(name)] + gen.keys(count_min, count_max)[:count_max]


def zadd(gen):
    args = [gen.token("zadd"), gen.key()]
    for _ in range(gen.rng.randint(0, 2)):
        if gen.chance(0.5):
            args.append(gen.token(gen.pick(["NX", "XX", "GT", "LT", "CH", "INCR"])))
    args += _pairs(gen, 1 if gen.chance(0.3) else 4)
    if gen.chance(0.03):
        args.append(b"1")  # an odd count: a syntax error
    return _arity_or(gen, "zadd", args, 0, 2)


def zincrby(gen):
    return _arity_or(gen, "zincrby", [gen.token("zincrby"), gen.key(), _score(gen), _member(gen)],
                     0, 2)


def zrem(gen):
    return _arity_or(gen, "zrem", [gen.token("zrem"), gen.key()] +
                     [_member(gen) for _ in range(gen.rng.randint(1, 3))], 0, 1)


def zcard(gen):
    return _arity_or(gen, "zcard", [gen.token("zcard"), gen.key()], 0, 0)


def zscore(gen):
    return _arity_or(gen, "zscore", [gen.token("zscore"), gen.key(), _member(gen)], 0, 1)


def zmscore(gen):
    return _arity_or(gen, "zmscore", [gen.token("zmscore"), gen.key()] +
                     [_member(gen) for _ in range(gen.rng.randint(1, 3))], 0, 1)


def zrank(gen):
    return _arity_or(gen, "zrank", [gen.token("zrank"), gen.key(), _member(gen)], 0, 1)


def zrevrank(gen):
    return _arity_or(gen, "zrevrank", [gen.token("zrevrank"), gen.key(), _member(gen)], 0, 1)


def _limit(gen):
    return [gen.token("LIMIT"), gen.integer_arg(lambda: gen.rng.randint(-1, 3)),
            gen.integer_arg(lambda: gen.rng.randint(-1, 3))]


def _range_args(gen, store):
    kind = gen.rng.randint(0, 2)
    if kind == 0:
        args = [_index(gen), _index(gen)]
    elif kind == 1:
        args = [gen.pick(SCORE_BOUNDS), gen.pick(SCORE_BOUNDS), gen.token("BYSCORE")]
    else:
        args = [gen.pick(LEX_BOUNDS), gen.pick(LEX_BOUNDS), gen.token("BYLEX")]
    if gen.chance(0.35):
        args.append(gen.token("REV"))
    if gen.chance(0.35):
        args += _limit(gen)
    if gen.chance(0.5 if not store else 0.03):
        args.append(gen.token("WITHSCORES"))
    if gen.chance(0.03):
        args.append(gen.junk_word())
    return args


def zrange(gen):
    return [gen.token("zrange"), gen.key()] + _range_args(gen, False)


def zrangestore(gen):
    return [gen.token("zrangestore"), gen.key(), gen.key()] + _range_args(gen, True)


def _older(name, lex, rank=False):
    def generate(gen):
        args = [gen.token(name), gen.key()]
        if rank:
            args += [_index(gen), _index(gen)]
        else:
            bounds = LEX_BOUNDS if lex else SCORE_BOUNDS
            args += [gen.pick(bounds), gen.pick(bounds)]
        if not lex and gen.chance(0.5):
            args.append(gen.token("WITHSCORES"))
        if gen.chance(0.35):
            args += _limit(gen)
        return args
    return generate


def zcount(gen):
    return [gen.token("zcount"), gen.key(), gen.pick(SCORE_BOUNDS), gen.pick(SCORE_BOUNDS)]


def zlexcount(gen):
    return [gen.token("zlexcount"), gen.key(), gen.pick(LEX_BOUNDS), gen.pick(LEX_BOUNDS)]


def zremrangebyrank(gen):
    return [gen.token("zremrangebyrank"), gen.key(), _index(gen), _index(gen)]


def zremrangebyscore(gen):
    return [gen.token("zremrangebyscore"), gen.key(), gen.pick(SCORE_BOUNDS),
            gen.pick(SCORE_BOUNDS)]


def zremrangebylex(gen):
    return [gen.token("zremrangebylex"), gen.key(), gen.pick(LEX_BOUNDS), gen.pick(LEX_BOUNDS)]


def _pop(name):
    def generate(gen):
        args = [gen.token(name), gen.key()]
        if gen.chance(0.6):
            args.append(gen.integer_arg(lambda: gen.rng.randint(-1, 4)))
        if gen.chance(0.03):
            args.append(b"1")
        return args
    return generate


def zmpop(gen):
    keys = gen.keys(1, 3)
    count = b"%d" % len(keys)
    if gen.chance(0.1):
        count = gen.pick([b"0", b"-1", b"abc", b"%d" % (len(keys) + 2), b""])
    args = [gen.token("zmpop"), count] + keys + [gen.token(gen.pick(["MIN", "MAX"]))]
    if gen.chance(0.05):
        args[-1] = gen.junk_word()
    if gen.chance(0.5):
        args += [gen.token("COUNT"), gen.integer_arg(lambda: gen.rng.randint(0, 4))]
    return args


def zrandmember(gen):
    """Counts that take the whole set (or none), the errors, and a missing key."""
    args = [gen.token("zrandmember"), gen.key()]
    if gen.chance(0.1):
        return args[:1]  # no key: an arity error (one random member is not compared)
    args.append(gen.pick([b"0", b"1000", b"100000", b"9223372036854775807", b"abc", b"", b"1.5",
                          b"-9223372036854775808", b"4611686018427387904"]))
    if gen.chance(0.5):
        args.append(gen.token("WITHSCORES") if gen.chance(0.9) else gen.junk_word())
    return args


def zscan(gen):
    """Whole iterations only (cursor 0, COUNT past any set's size), and the errors."""
    cursor = b"0" if gen.chance(0.9) else gen.pick([b"abc", b" 1", b"-", b"1.0", b""])
    args = [gen.token("zscan"), gen.key(), cursor, gen.token("COUNT"), b"1000"]
    roll = gen.rng.random()
    if roll < 0.35:
        args += [gen.token("MATCH"), gen.pick([b"*", b"[a-c]*", b"1*", b"*o*", b""])]
    elif roll < 0.45:
        args += [gen.token("COUNT"), gen.pick([b"0", b"-1", b"abc"])]
    elif roll < 0.5:
        args += [gen.token(gen.pick(["MATCH", "COUNT"]))]
    return args


def _algebra(name, store=False, card=False, scored=True):
    def generate(gen):
        keys = gen.keys(1, 3)
        count = b"%d" % len(keys)
        if gen.chance(0.08):
            count = gen.pick([b"0", b"-1", b"abc", b"%d" % (len(keys) + 1)])
        args = [gen.token(name)] + ([gen.key()] if store else []) + [count] + keys
        if card:
            if gen.chance(0.5):
                args += [gen.token("LIMIT"), gen.integer_arg(lambda: gen.rng.randint(0, 3))]
            return args
        if scored and gen.chance(0.35):
            args += [gen.token("WEIGHTS")] + [_score(gen) for _ in keys]
        if scored and gen.chance(0.35):
            args += [gen.token("AGGREGATE"), gen.token(gen.pick(["SUM", "MIN", "MAX", "AVG"]))]
        if not store and gen.chance(0.5):
            args.append(gen.token("WITHSCORES"))
        if gen.chance(0.04):
            args.append(gen.junk_word())
        return args
    return generate


def bzpop(name):
    def generate(gen):
        return [gen.token(name)] + gen.keys(1, 3) + [block_timeout(gen)]
    return generate


def bzmpop(gen):
    args = zmpop(gen)
    return [gen.token("bzmpop"), block_timeout(gen)] + args[1:]


GENERATORS = {
    "zadd": (4, zadd),
    "zincrby": (1.5, zincrby),
    "zrem": (1.5, zrem),
    "zcard": (0.7, zcard),
    "zscore": (0.7, zscore),
    "zmscore": (0.7, zmscore),
    "zrank": (0.7, zrank),
    "zrevrank": (0.7, zrevrank),
    "zrange": (2, zrange),
    "zrangestore": (1, zrangestore),
    "zrangebyscore": (0.7, _older("zrangebyscore", False)),
    "zrevrangebyscore": (0.7, _older("zrevrangebyscore", False)),
    "zrangebylex": (0.7, _older("zrangebylex", True)),
    "zrevrangebylex": (0.7, _older("zrevrangebylex", True)),
    "zrevrange": (0.7, _older("zrevrange", False, rank=True)),
    "zcount": (0.7, zcount),
    "zlexcount": (0.7, zlexcount),
    "zremrangebyrank": (0.5, zremrangebyrank),
    "zremrangebyscore": (0.5, zremrangebyscore),
    "zremrangebylex": (0.5, zremrangebylex),
    "zpopmin": (0.7, _pop("zpopmin")),
    "zpopmax": (0.7, _pop("zpopmax")),
    "zmpop": (0.7, zmpop),
    "bzpopmin": (0.5, bzpop("bzpopmin")),
    "bzpopmax": (0.5, bzpop("bzpopmax")),
    "bzmpop": (0.5, bzmpop),
    "zrandmember": (0.5, zrandmember),
    "zscan": (0.7, zscan),
    "zinter": (0.7, _algebra("zinter")),
    "zintercard": (0.5, _algebra("zintercard", card=True, scored=False)),
    "zinterstore": (0.7, _algebra("zinterstore", store=True)),
    "zunion": (0.7, _algebra("zunion")),
    "zunionstore": (0.7, _algebra("zunionstore", store=True)),
    "zdiff": (0.7, _algebra("zdiff", scored=False)),
    "zdiffstore": (0.7, _algebra("zdiffstore", store=True, scored=False)),
}
