"""Random arguments for the stream commands (Redis group "stream"): XADD, XLEN, XRANGE,
XREVRANGE, XDEL, XTRIM, XSETID, XREAD, XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM and
XINFO.

Every ID is explicit (the clock would make "*" differ between the servers): milliseconds from a
small range, so that XADD's order errors, the "<ms>-*" form, exclusive ranges and the node limits
(100 entries a node) are all met. Group and consumer names come from small pools so that groups
exist, PELs fill and claims move entries. BLOCK timeouts are short enough to time out at once.
"""

GROUPS = [b"g1", b"g2", b"g3"]
CONSUMERS = [b"c1", b"c2", b"c3", b"c4"]


def _ms(gen):
    return gen.rng.randint(0, 400)


def _id(gen, specials=True):
    """An ID argument: ms, ms-seq, a bound, or now and then junk."""
    roll = gen.rng.random()
    if specials and roll < 0.06:
        return gen.pick([b"-", b"+"])
    if roll < 0.09:
        return gen.pick([b"x", b"1-x", b"-1", b"18446744073709551616", b"0-0",
                         b"18446744073709551615-18446744073709551615"])
    if roll < 0.4:
        return b"%d" % _ms(gen)
    return b"%d-%d" % (_ms(gen), gen.rng.randint(0, 3))


def _bound(gen):
    bound = _id(gen)
    if gen.chance(0.15) and bound not in (b"-", b"+"):
        return b"(" + bound
    return bound


def _fields(gen):
    pairs = []
    for _ in range(gen.rng.randint(1, 3) if gen.chance(0.95) else 0):
        pairs += [gen.pick([b"f", b"g", b"1", b"name"]) if gen.chance(0.8) else gen.value()[:20],
                  gen.value()[:100]]
    if gen.chance(0.02):
        pairs.append(b"odd")
    return pairs


def _trim(gen, xadd):
    if xadd and gen.chance(0.7):
        return []
    args = [gen.token(gen.pick(["MAXLEN", "MINID"]))]
    if gen.chance(0.5):
        args.append(gen.pick([b"~", b"="]))
    if args[0].lower() == b"maxlen":
        args.append(b"%d" % gen.rng.randint(-1, 150) if gen.chance(0.97) else b"x")
    else:
        args.append(_id(gen, specials=False))
    if gen.chance(0.15):
        args += [gen.token("LIMIT"), b"%d" % gen.rng.randint(-1, 120)]
    return args


def xadd(gen):
    args = [gen.token("xadd"), gen.key()]
    if gen.chance(0.1):
        args.append(gen.token("NOMKSTREAM"))
    args += _trim(gen, True)
    if gen.chance(0.15):
        new_id = b"%d-*" % _ms(gen)
    else:
        new_id = _id(gen, specials=gen.chance(0.05))
    return args + [new_id] + _fields(gen)


def xlen(gen):
    return [gen.token("xlen"), gen.key()]


def _count(gen):
    if gen.chance(0.4):
        return [gen.token("COUNT"), b"%d" % gen.rng.randint(-1, 12)]
    return []


def xrange(gen):
    return [gen.token("xrange"), gen.key(), _bound(gen), _bound(gen)] + _count(gen)


def xrevrange(gen):
    return [gen.token("xrevrange"), gen.key(), _bound(gen), _bound(gen)] + _count(gen)


def xdel(gen):
    return [gen.token("xdel"), gen.key()] + [_id(gen, False) for _ in range(gen.rng.randint(1, 4))]


def xtrim(gen):
    return [gen.token("xtrim"), gen.key()] + _trim(gen, False)


def xsetid(gen):
    args = [gen.token("xsetid"), gen.key(), _id(gen, False)]
    if gen.chance(0.3):
        args += [gen.token("ENTRIESADDED"), b"%d" % gen.rng.randint(-1, 500)]
    if gen.chance(0.3):
        args += [gen.token("MAXDELETEDID"), _id(gen, False)]
    return args


def _streams(gen, group):
    keys = gen.keys(1, 3)
    ids = []
    for _ in keys:
        if group:
            ids.append(b">" if gen.chance(0.7) else _id(gen, False))
        else:
            ids.append(b"$" if gen.chance(0.2) else _id(gen, False))
    if gen.chance(0.03):
        ids = ids[:-1]
    return [gen.token("STREAMS")] + keys + ids


def _block(gen):
    if gen.chance(0.15):
        return [gen.token("BLOCK"), gen.pick([b"10", b"20", b"-1", b"x"])]
    return []


def xread(gen):
    return [gen.token("xread")] + _count(gen) + _block(gen) + _streams(gen, False)


def xreadgroup(gen):
    args = [gen.token("xreadgroup")]
    if gen.chance(0.97):
        args += [gen.token("GROUP"), gen.pick(GROUPS), gen.pick(CONSUMERS)]
    args += _count(gen) + _block(gen)
    if gen.chance(0.15):
        args.append(gen.token("NOACK"))
    return args + _streams(gen, True)


def xack(gen):
    return [gen.token("xack"), gen.key(), gen.pick(GROUPS)] + \
        [_id(gen, False) for _ in range(gen.rng.randint(1, 3))]


def xpending(gen):
    args = [gen.token("xpending"), gen.key(), gen.pick(GROUPS)]
    if gen.chance(0.4):
        return args
    if gen.chance(0.2):
        args += [gen.token("IDLE"), b"%d" % gen.rng.randint(0, 10)]
    args += [_bound(gen), _bound(gen), b"%d" % gen.rng.randint(-1, 10)]
    if gen.chance(0.3):
        args.append(gen.pick(CONSUMERS))
    return args


def xclaim(gen):
    args = [gen.token("xclaim"), gen.key(), gen.pick(GROUPS), gen.pick(CONSUMERS),
            gen.pick([b"0", b"0", b"100000", b"x"])]
    args += [_id(gen, False) for _ in range(gen.rng.randint(1, 3))]
    for option in gen.subset(["FORCE", "JUSTID", "RETRYCOUNT", "LASTID", "IDLE", "TIME"], 3):
        args.append(gen.token(option))
        if option == "RETRYCOUNT":
            args.append(b"%d" % gen.rng.randint(0, 5))
        elif option == "LASTID":
            args.append(_id(gen, False))
        elif option in ("IDLE", "TIME"):
            # Absolute times far in the past or future: both servers clamp them alike.
            args.append(gen.pick([b"0", b"5"]) if option == "IDLE" else b"1")
    return args


def xautoclaim(gen):
    args = [gen.token("xautoclaim"), gen.key(), gen.pick(GROUPS), gen.pick(CONSUMERS),
            gen.pick([b"0", b"0", b"100000", b"x"]), _bound(gen)]
    if gen.chance(0.4):
        args += [gen.token("COUNT"), b"%d" % gen.rng.randint(0, 6)]
    if gen.chance(0.3):
        args.append(gen.token("JUSTID"))
    return args


def xgroup_create(gen):
    args = [gen.token("xgroup"), gen.token("CREATE"), gen.key(), gen.pick(GROUPS),
            b"$" if gen.chance(0.3) else _id(gen, False)]
    if gen.chance(0.4):
        args.append(gen.token("MKSTREAM"))
    if gen.chance(0.15):
        args += [gen.token("ENTRIESREAD"), b"%d" % gen.rng.randint(-2, 20)]
    return args


def xgroup_setid(gen):
    args = [gen.token("xgroup"), gen.token("SETID"), gen.key(), gen.pick(GROUPS),
            b"$" if gen.chance(0.3) else _id(gen, False)]
    if gen.chance(0.3):
        args += [gen.token("ENTRIESREAD"), b"%d" % gen.rng.randint(-2, 20)]
    return args


def xgroup_destroy(gen):
    return [gen.token("xgroup"), gen.token("DESTROY"), gen.key(), gen.pick(GROUPS)]


def xgroup_consumer(sub):
    def generate(gen):
        return [gen.token("xgroup"), gen.token(sub), gen.key(), gen.pick(GROUPS),
                gen.pick(CONSUMERS)]
    return generate


def xgroup_help(gen):
    return [gen.token("xgroup"), gen.token("HELP")]


def xinfo_stream(gen):
    args = [gen.token("xinfo"), gen.token("STREAM"), gen.key()]
    if gen.chance(0.3):
        args.append(gen.token("FULL"))
        if gen.chance(0.5):
            args += [gen.token("COUNT"), b"%d" % gen.rng.randint(-1, 5)]
    return args


def xinfo_groups(gen):
    return [gen.token("xinfo"), gen.token("GROUPS"), gen.key()]


def xinfo_consumers(gen):
    return [gen.token("xinfo"), gen.token("CONSUMERS"), gen.key(), gen.pick(GROUPS)]


def xinfo_help(gen):
    return [gen.token("xinfo"), gen.token("HELP")]


GENERATORS = {
    "xadd": (6, xadd),
    "xlen": (1, xlen),
    "xrange": (2, xrange),
    "xrevrange": (1, xrevrange),
    "xdel": (1, xdel),
    "xtrim": (1, xtrim),
    "xsetid": (0.5, xsetid),
    "xread": (1.5, xread),
    "xreadgroup": (2, xreadgroup),
    "xack": (1, xack),
    "xpending": (1, xpending),
    "xclaim": (1, xclaim),
    "xautoclaim": (1, xautoclaim),
    "xgroup|create": (1.5, xgroup_create),
    "xgroup|setid": (0.5, xgroup_setid),
    "xgroup|destroy": (0.3, xgroup_destroy),
    "xgroup|createconsumer": (0.5, xgroup_consumer("CREATECONSUMER")),
    "xgroup|delconsumer": (0.3, xgroup_consumer("DELCONSUMER")),
    "xgroup|help": (0.02, xgroup_help),
    "xinfo|stream": (1, xinfo_stream),
    "xinfo|groups": (0.5, xinfo_groups),
    "xinfo|consumers": (0.5, xinfo_consumers),
    "xinfo|help": (0.02, xinfo_help),
}
