"""Random arguments for the HyperLogLog commands (Redis group "hyperloglog"): PFADD, PFCOUNT,
PFMERGE, PFDEBUG and PFSELFTEST.

Elements come from a pool large enough that a burst of PFADD makes a HyperLogLog dense (past
hll-sparse-max-bytes), so sparse edits, the promotion, the cached count and unions are all
compared; keys are the shared pool, so the commands also meet strings and other types (the
WRONGTYPE and "not a valid HyperLogLog" errors).
"""


def _element(gen):
    if gen.chance(0.1):
        return gen.value()[:32]
    return b"e%d" % gen.rng.randint(0, 3000)


def pfadd(gen):
    count = gen.rng.randint(300, 1200) if gen.chance(0.08) else gen.rng.randint(0, 5)
    return [gen.token("pfadd"), gen.key()] + [_element(gen) for _ in range(count)]


def pfcount(gen):
    return [gen.token("pfcount")] + gen.keys(1, 1 if gen.chance(0.6) else 4)


def pfmerge(gen):
    return [gen.token("pfmerge"), gen.key()] + (gen.keys(1, 3) if gen.chance(0.9) else [])


def pfdebug(gen):
    sub = gen.token(gen.pick(["GETREG", "DECODE", "ENCODING", "TODENSE"])) if gen.chance(0.95) \
        else gen.junk_word()
    args = [gen.token("pfdebug"), sub, gen.key()]
    return args if gen.chance(0.97) else args[:2]


def pfselftest(gen):
    return [gen.token("pfselftest")]


GENERATORS = {
    "pfadd": (3, pfadd),
    "pfcount": (2, pfcount),
    "pfmerge": (1, pfmerge),
    "pfdebug": (1, pfdebug),
    "pfselftest": (0.02, pfselftest),
}
