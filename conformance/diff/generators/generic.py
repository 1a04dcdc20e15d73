"""Random arguments for the generic key commands (Redis group "generic")."""


def del_(gen):
    if gen.chance(0.03):
        return [gen.token("del")]  # wrong arity
    return [gen.token("del")] + gen.keys(1, 4)


def exists(gen):
    if gen.chance(0.03):
        return [gen.token("exists")]  # wrong arity
    return [gen.token("exists")] + gen.keys(1, 5)


GENERATORS = {
    "del": (3, del_),
    "exists": (4, exists),
}
