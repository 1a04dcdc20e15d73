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


# --- DUMP and RESTORE ------------------------------------------------------------------------
# RESTORE payloads are made here as Redis writes them (a string's RDB encoding, RDB version 10,
# CRC-64 Jones), uncompressed (a valid payload either server restores), and sometimes damaged: a
# flipped byte, a version from the future, a truncated value, a type neither loader accepts. DUMP
# replies of what is stored are compared byte for byte, LZF included. TTLs never expire during a
# run: 0, far future (relative or ABSTTL), or already past (the key is not created).

_RDB_VERSION = 10


def _crc64_table():
    poly = 0x95ac9329ac4bc9b5  # the Jones polynomial, reflected
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC_TABLE = _crc64_table()


def crc64(data):
    crc = 0
    for byte in data:
        crc = _CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >> 8)
    return crc


def _length(n):
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | (n >> 8), n & 0xff])
    return b"\x80" + n.to_bytes(4, "big")


def _string(value):
    """rdbSaveRawString without LZF: integers of 32 bits as such, else length and bytes."""
    try:
        number = int(value)
        canonical = b"%d" % number == value and len(value) <= 11
    except ValueError:
        canonical = False
    if canonical and -2 ** 31 <= number < 2 ** 31:
        if -128 <= number < 128:
            return b"\xc0" + number.to_bytes(1, "little", signed=True)
        if -32768 <= number < 32768:
            return b"\xc1" + number.to_bytes(2, "little", signed=True)
        return b"\xc2" + number.to_bytes(4, "little", signed=True)
    return _length(len(value)) + value


def payload(value, type_byte=0, version=_RDB_VERSION):
    body = bytes([type_byte]) + _string(value) + version.to_bytes(2, "little")
    return body + crc64(body).to_bytes(8, "little")


def _damaged(gen, value):
    good = payload(value)
    kind = gen.pick(["flip", "version", "truncate", "type", "short", "junk"])
    if kind == "flip":
        i = gen.rng.randrange(len(good) - 8)
        return good[:i] + bytes([good[i] ^ 0x01]) + good[i + 1:]
    if kind == "version":
        return payload(value, version=gen.pick([11, 255, 0xffff]))
    if kind == "truncate":
        # A consistent checksum over a value that claims more bytes than it has: up to the 10 of
        # the footer are read from it (Redis's loader reads the whole payload), more is refused.
        extra = gen.pick([1, 10, 11, 1000])
        body = bytes([0]) + _length(len(value) + extra) + value + _RDB_VERSION.to_bytes(2, "little")
        return body + crc64(body).to_bytes(8, "little")
    if kind == "type":
        # A type byte no loader of either server accepts.
        return payload(value, type_byte=gen.pick([8, 100, 200]))
    if kind == "short":
        return good[:gen.rng.randrange(10)]
    return gen.junk_word()


def dump_(gen):
    if gen.chance(0.03):
        return [gen.token("dump")] + gen.keys(0, 2) * 2  # wrong arity (0 or 2+ keys)
    return [gen.token("dump"), gen.key()]


def restore(gen):
    if gen.chance(0.03):
        return [gen.token("restore")] + gen.keys(0, 2)  # wrong arity
    value = gen.value()
    if len(value) > 4096:
        value = value[:4096]
    data = payload(value) if gen.chance(0.85) else _damaged(gen, value)
    roll = gen.rng.random()
    absttl = False
    if roll < 0.6:
        ttl = b"0"
    elif roll < 0.75:
        ttl = b"%d" % (gen.pick(FUTURE_UNIX_S) * 1000)
        absttl = True
    elif roll < 0.85:
        ttl = b"%d" % (gen.pick(PAST_UNIX_S) * 1000)
        absttl = True
    elif roll < 0.92:
        ttl = b"%d" % (10 ** 12)  # relative, far in the future
    else:
        ttl = gen.integer_arg(lambda: 0)
    args = [gen.token("restore"), gen.key(), ttl, data]
    for _ in range(gen.weighted([(45, 0), (35, 1), (15, 2), (5, 3)])):
        option = gen.weighted([(35, "replace"), (15, "absttl"), (15, "idletime"), (15, "freq"),
                               (5, "missing"), (15, "junk")])
        if option == "replace":
            args.append(gen.token("REPLACE"))
        elif option == "absttl":
            args.append(gen.token("ABSTTL"))
        elif option == "idletime":
            args += [gen.token("IDLETIME"), gen.integer_arg(lambda: gen.rng.randint(0, 1000))]
        elif option == "freq":
            args += [gen.token("FREQ"), gen.integer_arg(lambda: gen.rng.randint(0, 255))]
        elif option == "missing":
            args.append(gen.token(gen.pick(["IDLETIME", "FREQ"])))
        else:
            args.append(gen.junk_word())
    if absttl and b"ABSTTL" not in [a.upper() for a in args[4:]]:
        args.append(gen.token("ABSTTL"))
    return args



_SORT_PATTERNS = [b"k*", b"*", b"nosort", b"k*->f", b"k*->a", b"#", b"k*->", b"x*y"]


def sort_(gen, read_only=False):
    """SORT and SORT_RO. The forms whose order Redis leaves to a hash table are not drawn with
    LIMIT (which would pick different members): BY a constant (a set keeps its table order) and
    ALPHA BY a pattern (equal or missing values keep the order they came in); the normaliser
    compares their replies as multisets."""
    args = [gen.token("sort_ro" if read_only else "sort"), gen.key()]
    options = [gen.pick(["by", "limit", "get", "get", "order", "alpha", "alpha", "store", "junk"])
               for _ in range(gen.rng.randint(0, 4))]
    if read_only and "store" in options:
        options.remove("store")
    by = None
    for option in options:
        if option == "by":
            by = gen.pick(_SORT_PATTERNS)
            args += [gen.token("BY"), by]
        elif option == "get":
            args += [gen.token("GET"), gen.pick(_SORT_PATTERNS)]
        elif option == "order":
            args.append(gen.token(gen.pick(["ASC", "DESC"])))
        elif option == "alpha":
            args.append(gen.token("ALPHA"))
        elif option == "store":
            args += [gen.token("STORE"), gen.key()]
        elif option == "junk":
            args.append(gen.junk_word())
    # Numbers only with ALPHA (or BY a constant, which parses none): Redis's SORT reads errno
    # after strtod without clearing it first, so once any conversion on the server went out of
    # range (INCRBYFLOAT 1e5000, ...) a SORT of good numbers fails until a system call resets
    # errno. Numeric SORT is compared in conformance/cases/sort.txt, where the order is known,
    # and against the model in every simulator run.
    if "alpha" not in options and (by is None or b"*" in by):
        args.append(gen.token("ALPHA"))
        options.append("alpha")
    unordered = by is not None and (b"*" not in by or "alpha" in options)
    if "limit" in options and not unordered:
        args += [gen.token("LIMIT"), gen.integer_arg(lambda: gen.rng.randint(-2, 4)),
                 gen.integer_arg(lambda: gen.rng.randint(-2, 4))]
    return args


def sort_ro(gen):
    return sort_(gen, True)


GENERATORS = {
    "sort": (1.5, sort_),
    "sort_ro": (0.5, sort_ro),
    "dump": (1, dump_),
    "restore": (1.5, restore),
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
