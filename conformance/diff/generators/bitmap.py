"""Random arguments for the bitmap commands (Redis group "bitmap"): SETBIT, GETBIT, BITCOUNT,
BITPOS, BITOP, BITFIELD and BITFIELD_RO.

Offsets stay within a few hundred bits (strings grow a little, ranges cross bytes and words),
with Redis's error cases now and then: negative, '#' where only BITFIELD takes it, past
proto-max-bulk-len, not a number. Field types cover every width edge (i1, u1, i64, u63, the
refused u64), values the overflow edges of each width.
"""

_OFFSETS = [b"0", b"1", b"7", b"8", b"15", b"63", b"64", b"100", b"200", b"511", b"-1", b"x", b"",
            b"4294967296", b"4294967295", b"1.5", b"+1", b"01"]
_INDEXES = [b"0", b"1", b"-1", b"2", b"-2", b"5", b"-5", b"8", b"100", b"-100", b"9223372036854775807",
            b"-9223372036854775808", b"x", b""]
_TYPES = [b"u1", b"i1", b"u8", b"i8", b"u5", b"i7", b"u16", b"i16", b"u32", b"i32", b"u63", b"i63",
          b"i64", b"u64", b"i65", b"u0", b"x8", b"", b"U8", b"I8"]
_VALUES = [b"0", b"1", b"-1", b"127", b"128", b"-128", b"-129", b"255", b"256", b"65535", b"65536",
           b"9223372036854775807", b"-9223372036854775808", b"1000000", b"-7", b"x", b"1.5"]


# The last valid offset, 2^32 - 1, makes a write grow the string to 512 MB on both servers, and
# every later GET of that key moves it: writes take it rarely (a run's time went to it).
_LAST_OFFSET = b"4294967295"


def _offset(gen, writes=False):
    if gen.chance(0.1):
        return str(gen.rng.randint(0, 400)).encode()
    offset = gen.pick(_OFFSETS)
    if writes and offset == _LAST_OFFSET and not gen.chance(0.02):
        return b"511"
    return offset


def _unit(gen):
    return gen.token(gen.pick(["BIT", "BYTE"])) if gen.chance(0.95) else gen.junk_word()


def setbit(gen):
    bit = gen.pick([b"0", b"1"]) if gen.chance(0.9) else gen.pick([b"2", b"-1", b"x", b""])
    args = [gen.token("setbit"), gen.key(), _offset(gen, writes=True), bit]
    return args if gen.chance(0.97) else args[:gen.rng.randint(1, 3)]


def getbit(gen):
    args = [gen.token("getbit"), gen.key(), _offset(gen)]
    return args if gen.chance(0.97) else args[:2] + [b"1", b"2"]


def bitcount(gen):
    args = [gen.token("bitcount"), gen.key()]
    roll = gen.rng.random()
    if roll < 0.7:
        args += [gen.pick(_INDEXES), gen.pick(_INDEXES)]
        if gen.chance(0.5):
            args.append(_unit(gen))
    elif roll < 0.75:
        args.append(gen.pick(_INDEXES))
    elif roll < 0.78:
        args += [b"0", b"1", b"bit", b"extra"]
    return args


def bitpos(gen):
    bit = gen.pick([b"0", b"1"]) if gen.chance(0.93) else gen.pick([b"2", b"-1", b"x"])
    args = [gen.token("bitpos"), gen.key(), bit]
    extra = gen.rng.randint(0, 4)
    if extra >= 1:
        args.append(gen.pick(_INDEXES))
    if extra >= 2:
        args.append(gen.pick(_INDEXES))
    if extra >= 3:
        args.append(_unit(gen))
    if extra >= 4 and gen.chance(0.2):
        args.append(b"extra")
    return args


def bitop(gen):
    op = gen.token(gen.pick(["AND", "OR", "XOR", "NOT"])) if gen.chance(0.95) else gen.junk_word()
    keys = gen.keys(1, 1 if gen.chance(0.3) else 4)
    return [gen.token("bitop"), op, gen.key()] + keys


def _field_ops(gen, read_only):
    args = []
    for _ in range(gen.rng.randint(0, 4)):
        roll = gen.rng.random()
        if read_only and roll < 0.9 or not read_only and roll < 0.3:
            args += [gen.token("GET"), gen.pick(_TYPES), _field_offset(gen)]
        elif roll < 0.8 or read_only:
            args += [gen.token(gen.pick(["SET", "INCRBY"])), gen.pick(_TYPES), _field_offset(gen, True),
                     gen.pick(_VALUES)]
        else:
            args += [gen.token("OVERFLOW"), gen.token(gen.pick(["WRAP", "SAT", "FAIL", "BAD"]))]
    if gen.chance(0.05):
        args = args[:-1]  # a subcommand cut short: a syntax error
    return args


def _field_offset(gen, writes=False):
    if gen.chance(0.3):
        return b"#" + gen.pick([b"0", b"1", b"2", b"7", b"-1", b"x", b""])
    return _offset(gen, writes)


def bitfield(gen):
    return [gen.token("bitfield"), gen.key()] + _field_ops(gen, False)


def bitfield_ro(gen):
    return [gen.token("bitfield_ro"), gen.key()] + _field_ops(gen, True)


GENERATORS = {
    "setbit": (3, setbit),
    "getbit": (1.5, getbit),
    "bitcount": (1.5, bitcount),
    "bitpos": (1.5, bitpos),
    "bitop": (1, bitop),
    "bitfield": (2, bitfield),
    "bitfield_ro": (0.7, bitfield_ro),
}
