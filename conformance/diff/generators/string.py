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


GENERATORS = {
    "get": (6, get),
    "set": (8, set_),
}
