"""Every normalisation the differential runner applies, in one place.

A reply is compared byte for byte unless its command is named in NORMALISERS below (or, inside
EXEC, in IN_EXEC_NORMALISERS); then both replies are parsed, passed through the same function and
serialised again before comparing. The pub/sub confirmations and messages that the random run
reads as runs of values have their own two (UNSUBSCRIBE_ALL, PUBLISHED), for orders that Redis
takes from a hash table. A normaliser only erases what differs between two correct servers run
side by side (connection ids, addresses, timings, memory sizes, the order of hash-table walks); it
does not change a reply's shape, so a missing field, an extra field or a wrong type still shows.
Two exceptions are named below and nowhere else: a field Keel adds to INFO on purpose
(INFO_KEEL_ONLY_FIELDS), and what Keel does not have yet (KNOWN_GAP_INFO_SECTIONS, listed in
KNOWN_GAPS, which the runner prints after every run). Error replies are never normalised.
"""

from resp import Value, serialise

ERASED = b"<erased>"


def _is_key(value, name):
    return value.kind in "+$" and value.data == name


def _pairs(value):
    """The (key, value) pairs of a map, or of its RESP2 form (a flat array)."""
    if value.kind == "%":
        return list(value.data)
    if value.kind == "*" and value.data is not None and len(value.data) % 2 == 0:
        return [(value.data[i], value.data[i + 1]) for i in range(0, len(value.data), 2)]
    return None


def _from_pairs(template, pairs):
    if template.kind == "%":
        return Value("%", pairs)
    return Value("*", [item for pair in pairs for item in pair])


def _text(value):
    """The text of a bulk or verbatim string reply (without the verbatim format prefix)."""
    if value.kind == "$" and value.data is not None:
        return value.data
    if value.kind == "=":
        return value.data[4:]
    return None


def _with_text(template, text):
    if template.kind == "=":
        return Value("=", template.data[:4] + text)
    return Value("$", text)


def _serialised_key(value):
    return serialise(value)


# --- HELLO: the connection id depends on how many connections each server has seen. ---

def hello(value, args):
    pairs = _pairs(value)
    if pairs is None:
        return value
    return _from_pairs(value, [(k, Value(":", ERASED) if _is_key(k, b"id") else v)
                               for k, v in pairs])


# --- CLIENT ID: as HELLO's id. ---

def client_id(value, args):
    return Value(":", ERASED) if value.kind == ":" else value


# --- CLIENT INFO / CLIENT LIST: fields that describe the socket, timings and buffer sizes. ---
# Field names, their order, and the fields that describe the client's state (name, flags, db,
# sub, psub, ssub, multi, multi-mem, events, cmd, user, redir, resp) are compared.

CLIENT_VOLATILE_FIELDS = {
    b"id", b"addr", b"laddr", b"fd", b"age", b"idle", b"qbuf", b"qbuf-free", b"argv-mem",
    b"rbs", b"rbp", b"obl", b"oll", b"omem", b"tot-mem",
}


def _client_line(line):
    fields = []
    for field in line.split(b" "):
        name, sep, rest = field.partition(b"=")
        fields.append(name + sep + (ERASED if sep and name in CLIENT_VOLATILE_FIELDS else rest))
    return b" ".join(fields)


def client_lines(value, args):
    text = _text(value)
    if text is None:
        return value
    return _with_text(value, b"\n".join(_client_line(line) if line else line
                                        for line in text.split(b"\n")))


# --- INFO: values are the server's measurements (memory, time, pid, port, run id, counters of
# work the runner's own connections did). Section titles, field names and their order are
# compared, and so are the values named below, which two correct servers configured alike share.

INFO_COMPARED_VALUES = {
    b"redis_version", b"redis_mode", b"arch_bits", b"role", b"maxmemory_policy", b"aof_enabled",
    b"cluster_enabled", b"loading", b"async_loading", b"connected_slaves",
}
# Sub-fields compared inside "a=1,b=2" values: key counts per database, calls per command (the
# runner sends both servers the same commands), error counts per error code.
INFO_COMPARED_SUBFIELDS = {b"keys", b"expires", b"calls", b"rejected_calls", b"failed_calls",
                           b"count"}
# Fields Keel adds to Redis's INFO on purpose; dropped from Keel's reply. expired_subkeys is
# Redis 7.4's count of hash fields expired, which comes with Keel's per-field TTLs.
INFO_KEEL_ONLY_FIELDS = {b"keel_version", b"expired_subkeys"}


def _info_value(name, value):
    if name in INFO_COMPARED_VALUES:
        return value
    if (name.startswith(b"db") or name.startswith(b"cmdstat_")
            or name.startswith(b"errorstat_")) and b"=" in value:
        parts = []
        for part in value.split(b","):
            sub, sep, rest = part.partition(b"=")
            parts.append(sub + sep + (rest if sub in INFO_COMPARED_SUBFIELDS else ERASED))
        return b",".join(parts)
    return ERASED


# Sections whose lines follow Redis's command hash table (one line per command); their lines are
# sorted.
INFO_SECTIONS_IN_TABLE_ORDER = {b"# Commandstats", b"# Latencystats"}


def _info_sections(text):
    """Splits INFO text into sections, each a list of lines starting with its "# Title"."""
    sections = []
    for line in text.split(b"\r\n"):
        if line.startswith(b"#") or not sections:
            sections.append([])
        sections[-1].append(line)
    return sections


def info(value, args):
    text = _text(value)
    if text is None:
        return value
    out = []
    for section in _info_sections(text):
        if section[0] in KNOWN_GAP_INFO_SECTIONS:
            continue
        lines = []
        for line in section:
            name, sep, rest = line.partition(b":")
            if line.startswith(b"#") or not sep:
                lines.append(line)
            elif name not in INFO_KEEL_ONLY_FIELDS:
                lines.append(name + b":" + _info_value(name, rest))
        if section[0] in INFO_SECTIONS_IN_TABLE_ORDER:
            body = [line for line in lines[1:] if line]
            lines = lines[:1] + sorted(body) + [line for line in lines[1:] if not line]
        out += lines
    return _with_text(value, b"\r\n".join(out))


# --- TIME: the clock. Two bulk strings; their digits are erased. ---

def time_reply(value, args):
    if value.kind == "*" and value.data is not None and len(value.data) == 2:
        return Value("*", [Value("$", ERASED) if item.kind == "$" else item
                           for item in value.data])
    return value


# --- SLOWLOG GET: each entry is [id, unix time, duration, args, client address, client name].
# The id depends on what each server logged before the file ran (a command slower than
# slowlog-log-slower-than on one server only), the time and duration on the clock, the address on
# the connection; the arguments (with their truncation and redaction) and the name are compared.

def slowlog_entries(value, args):
    if value.kind != "*" or value.data is None:
        return value
    entries = []
    for entry in value.data:
        if entry.kind == "*" and entry.data is not None and len(entry.data) == 6:
            erased = [Value(item.kind, ERASED) for item in entry.data[:3]]
            address = Value(entry.data[4].kind, ERASED)
            entry = Value("*", erased + [entry.data[3], address, entry.data[5]])
        entries.append(entry)
    return Value("*", entries)


# --- LATENCY HISTOGRAM: per command, "calls" is compared, the bucket counts (timings) are not;
# commands come in hash-table order, so they are sorted.

def latency_histogram(value, args):
    pairs = _pairs(value)
    if pairs is None:
        return value
    out = []
    for name, detail in pairs:
        fields = _pairs(detail)
        if fields is not None:
            fields = [(k, Value("$", ERASED) if _is_key(k, b"histogram_usec") else v)
                      for k, v in fields]
            detail = _from_pairs(detail, fields)
        out.append((name, detail))
    return _from_pairs(value, sorted(out, key=lambda pair: _serialised_key(pair[0])))


# --- TTL, PTTL, EXPIRETIME, PEXPIRETIME: a positive reply is a reading of the clock (the time
# left, or an absolute time set relative to each server's own clock), so it is erased; -1 (no
# expiry) and -2 (no key) are compared.

def clock_integer(value, args):
    if value.kind == ":" and not value.data.startswith(b"-"):
        return Value(":", ERASED)
    return value


# --- OBJECT IDLETIME: seconds on each server's clock, which tick at different moments; and Redis
# keeps one access time for all the keys that hold the same shared integer (0..9999). A null (no
# key) and the errors are compared.

def object_idletime(value, args):
    return Value(":", ERASED) if value.kind == ":" else value


# --- MEMORY USAGE: bytes of each server's own layout (Keel's are its own by design); that there
# is a positive count, a null for a missing key, and the errors are compared.

def memory_usage(value, args):
    if value.kind == ":" and value.data is not None and not value.data.startswith(b"-") \
            and value.data != b"0":
        return Value(":", ERASED)
    return value


# --- RANDOMKEY: which key is random; whether there is one (a key, or null) is compared.

def random_key(value, args):
    if value.kind == "$" and value.data is not None:
        return Value("$", ERASED)
    return value


# --- Replies that walk a hash table: the same elements, in an order that depends on hashing. ---

def sorted_elements(value, args):
    if value.kind in "*~" and value.data is not None:
        return Value(value.kind, sorted(value.data, key=_serialised_key))
    return value


def scan_keys(value, args):
    """SCAN's [cursor, keys]: the cursor is compared (the generators ask only for whole
    iterations, which both servers end with 0), the keys as a set."""
    if value.kind == "*" and value.data is not None and len(value.data) == 2:
        return Value("*", [value.data[0], sorted_elements(value.data[1], args)])
    return value


def sorted_pairs(value, args):
    pairs = _pairs(value)
    if pairs is None:
        return value
    return _from_pairs(value, sorted(pairs, key=lambda pair: _serialised_key(pair[0])))


def sort_reply(value, args):
    """SORT in an order Redis takes from a hash table: BY a constant (a set's own order), ALPHA
    BY a pattern (ties keep the order they came in, a set's table order), ALPHA over elements
    holding a NUL byte (compared as C strings: they tie). Compared as multisets then."""
    upper = [arg.upper() for arg in args]
    by = [args[i + 1] for i, arg in enumerate(upper[:-1]) if arg == b"BY" and i >= 2]
    alpha = b"ALPHA" in upper[2:]
    unordered = bool(by) and (b"*" not in by[-1] or alpha)
    if not unordered and alpha and value.kind == "*" and value.data is not None:
        unordered = any(isinstance(item.data, bytes) and b"\x00" in item.data
                        for item in value.data)
    return sorted_elements(value, args) if unordered else value


# --- COMMAND INFO and COMMAND DOCS: a container's subcommands are listed in the order of its
# subcommand dict, which Redis hashes with a seed chosen at random when it starts (the same
# server lists CONFIG's subcommands in different orders from one start to the next). Without
# command names (the whole table), the commands themselves come in dict order too.

COMMAND_INFO_SUBCOMMANDS = 9  # the index of the subcommands array in a COMMAND INFO entry


def _info_entry(entry):
    if entry.kind != "*" or entry.data is None or len(entry.data) <= COMMAND_INFO_SUBCOMMANDS:
        return entry
    items = list(entry.data)
    items[COMMAND_INFO_SUBCOMMANDS] = sorted_elements(
        Value(items[COMMAND_INFO_SUBCOMMANDS].kind,
              [_info_entry(sub) for sub in items[COMMAND_INFO_SUBCOMMANDS].data or []]), None)
    return Value(entry.kind, items)


def command_info(value, args):
    if value.kind != "*" or value.data is None:
        return value
    value = Value("*", [_info_entry(entry) for entry in value.data])
    whole_table = len(args) <= 2  # COMMAND, COMMAND INFO
    return sorted_elements(value, args) if whole_table else value


def _doc(doc):
    pairs = _pairs(doc)
    if pairs is None:
        return doc
    return _from_pairs(doc, [(k, _docs_map(v) if _is_key(k, b"subcommands") else v)
                             for k, v in pairs])


def _docs_map(value):
    """A map of command name -> doc, its entries sorted, their subcommands too."""
    pairs = _pairs(value)
    if pairs is None:
        return value
    pairs = [(name, _doc(doc)) for name, doc in pairs]
    return _from_pairs(value, sorted(pairs, key=lambda pair: _serialised_key(pair[0])))


def command_docs(value, args):
    pairs = _pairs(value)
    if pairs is None:
        return value
    if len(args) == 2:
        return _docs_map(value)  # the whole table: its order is the dict's
    # Named commands come in the order asked for; only their subcommands are sorted.
    return _from_pairs(value, [(name, _doc(doc)) for name, doc in pairs])


# --- Known gaps: what Keel does not have yet, taken out of Redis's reply so that the rest is still
# compared. Each entry names what is missing; the runner prints this list after every run.

# INFO sections Keel does not produce yet (with their "# Title" line), dropped from both replies.
KNOWN_GAP_INFO_SECTIONS = set()
# Command -> what Keel lacks in it. The runners print these after every run, and
# docs/COMPATIBILITY.md (conformance/compat/compatibility.py) marks these commands partial.
KNOWN_GAPS = {
    "client|help": "lists only the CLIENT subcommands Keel has (only its arity error is compared)",
}


# Command ("name" or "container|subcommand", lowercase) -> (why, function(value, args), argc):
# the function applies to that command's replies, only with exactly `argc` arguments when argc is
# not None ("COMMAND" alone lists the whole table; with names, COMMAND INFO and DOCS list them in
# the order asked for, which is compared, and only subcommands are sorted).
# --- DUMP of a hashtable-encoded set (RDB type 2): its members come in the set's hash order. The
# payload's length (the same members, so the same bytes in another order) is compared.

def set_payload(value, args):
    if value.kind == "$" and value.data is not None and value.data[:1] == b"\x02":
        return Value("$", b"<set payload of %d bytes>" % len(value.data))
    # A hashtable-encoded hash (RDB type 4): its fields come in the hash's table order.
    if value.kind == "$" and value.data is not None and value.data[:1] == b"\x04":
        return Value("$", b"<hash payload of %d bytes>" % len(value.data))
    # A stream (RDB type 19): its PEL delivery times and consumer seen times are the clock's.
    if value.kind == "$" and value.data is not None and value.data[:1] == b"\x13":
        return Value("$", _stream_times_zeroed(value.data))
    return value


def _stream_times_zeroed(data):
    """A stream payload with its 8-byte times (and so its checksum) zeroed."""
    try:
        out = bytearray(data)
        nodes, _, at = _rdb_length(data, 1)
        for _ in range(nodes):
            at = _rdb_string_end(data, _rdb_string_end(data, at))
        for _ in range(8):  # length, last ID, first ID, max deleted ID, entries added
            _, _, at = _rdb_length(data, at)
        groups, _, at = _rdb_length(data, at)
        timed = False
        for _ in range(groups):
            at = _rdb_string_end(data, at)
            for _ in range(3):  # last ID, entries read
                _, _, at = _rdb_length(data, at)
            pending, _, at = _rdb_length(data, at)
            for _ in range(pending):
                out[at + 16:at + 24] = bytes(8)
                _, _, at = _rdb_length(data, at + 24)
                timed = True
            consumers, _, at = _rdb_length(data, at)
            for _ in range(consumers):
                at = _rdb_string_end(data, at)
                out[at:at + 8] = bytes(8)
                owned, _, at = _rdb_length(data, at + 8)
                at += 16 * owned
                timed = True
        if timed:
            out[-8:] = bytes(8)
        return bytes(out)
    except (IndexError, TypeError):
        return data


# --- Streams: pending entries carry delivery times and consumers the time they were seen. ---

def _zero_integer(value):
    return Value(":", b"0") if value.kind == ":" else value


def xpending_times(value, args):
    """XPENDING's extended form: [id, consumer, idle ms, deliveries] per entry."""
    if len(args) <= 3 or value.kind != "*" or value.data is None:
        return value
    return Value("*", [Value("*", [item.data[0], item.data[1], _zero_integer(item.data[2]),
                                   item.data[3]])
                       if item.kind == "*" and item.data and len(item.data) == 4 else item
                       for item in value.data])


def _map_with(value, zero_keys, nested):
    pairs = _pairs(value)
    if pairs is None:
        return value
    changed = []
    for key, item in pairs:
        if any(_is_key(key, name) for name in zero_keys):
            item = _zero_integer(item)
        else:
            for name, function in nested:
                if _is_key(key, name):
                    item = function(item)
        changed.append((key, item))
    return _from_pairs(value, changed)


def _each(function):
    def apply(value):
        if value.kind != "*" or value.data is None:
            return value
        return Value("*", [function(item) for item in value.data])
    return apply


def _entry_time(index):
    def apply(entry):
        if entry.kind != "*" or entry.data is None or len(entry.data) <= index:
            return entry
        items = list(entry.data)
        items[index] = _zero_integer(items[index])
        return Value("*", items)
    return apply


def xinfo_consumers_times(value, args):
    return _each(lambda consumer: _map_with(consumer, [b"idle"], []))(value)


def xinfo_stream_times(value, args):
    consumer = lambda c: _map_with(c, [b"seen-time"], [(b"pending", _each(_entry_time(1)))])
    group = lambda g: _map_with(g, [], [(b"pending", _each(_entry_time(2))),
                                         (b"consumers", _each(consumer))])
    return _map_with(value, [], [(b"groups", _each(group))])


# --- Hashes: a listpack's replies come in insertion order, which is compared; a hashtable's in
# its table's order. Which one a key holds is not in the reply, so the case files and the random
# generator follow a naming rule: a hash key whose name starts with "ht" is (or may become) a
# hashtable, and only its replies are compared as sets of fields or pairs.

def _hashtable_key(args):
    return len(args) > 1 and args[1].startswith(b"ht")


def hash_elements(value, args):
    return sorted_elements(value, args) if _hashtable_key(args) else value


def hash_pairs(value, args):
    return sorted_pairs(value, args) if _hashtable_key(args) else value


def hscan_pairs(value, args):
    """HSCAN's [cursor, field, value, ...] of a hashtable: the pairs as a set."""
    if (not _hashtable_key(args) or value.kind != "*" or value.data is None
            or len(value.data) != 2):
        return value
    return Value("*", [value.data[0], sorted_pairs(value.data[1], args)])


def hrandfield_draws(value, args):
    """HRANDFIELD with a count that takes the whole hash: in table order for a hashtable (the
    generators and cases ask for no other count with more than one field)."""
    return sorted_elements(value, args) if _hashtable_key(args) else value


# --- FUNCTION LIST: libraries, and the functions of each, come in hash-table order.

def function_list(value, args):
    if value.kind != "*" or value.data is None:
        return value
    libraries = []
    for library in value.data:
        pairs = _pairs(library)
        if pairs is None:
            return value
        pairs = [(key, Value(item.kind, sorted(item.data, key=_serialised_key)))
                 if _is_key(key, b"functions") and item.kind == "*" and item.data is not None
                 else (key, item) for key, item in pairs]
        libraries.append(_from_pairs(library, pairs))
    return Value("*", sorted(libraries, key=_serialised_key))


# --- FUNCTION DUMP: one RDB_OPCODE_FUNCTION2 record per library, in hash-table order, then the
# RDB version and a CRC-64 of it all. The records are compared as a set (each byte for byte);
# the checksum, which depends on their order, is erased.

def _rdb_length(data, at):
    """(length or None for a special encoding, encoding number, next offset) of rdbLoadLen."""
    first = data[at]
    kind = first >> 6
    if kind == 0:
        return first & 0x3f, None, at + 1
    if kind == 1:
        return ((first & 0x3f) << 8) | data[at + 1], None, at + 2
    if kind == 3:
        return None, first & 0x3f, at + 1
    if first == 0x80:
        return int.from_bytes(data[at + 1:at + 5], "big"), None, at + 5
    return int.from_bytes(data[at + 1:at + 9], "big"), None, at + 9


def _rdb_string_end(data, at):
    """Where the RDB string starting at `at` ends."""
    length, encoding, at = _rdb_length(data, at)
    if length is not None:
        return at + length
    if encoding in (0, 1, 2):
        return at + (1 << encoding)
    compressed, _, at = _rdb_length(data, at)  # LZF: compressed length, then the plain length
    _, _, at = _rdb_length(data, at)
    return at + compressed


def function_dump(value, args):
    if value.kind != "$" or value.data is None or len(value.data) < 10:
        return value
    data = value.data
    records = []
    at = 0
    try:
        while at < len(data) - 10:
            if data[at] != 0xf5:
                return value
            end = _rdb_string_end(data, at + 1)
            records.append(data[at:end])
            at = end
    except IndexError:
        return value
    if at != len(data) - 10:
        return value
    return Value("$", b"".join(sorted(records)) + data[-10:-8] + ERASED)


NORMALISERS = {
    "hello": ("connection id", hello, None),
    "client|id": ("connection id", client_id, None),
    "client|info": ("socket, timing and buffer fields", client_lines, None),
    "client|list": ("socket, timing and buffer fields", client_lines, None),
    "info": ("measured values", info, None),
    "command": ("command table order", command_info, 1),
    "command|info": ("command and subcommand table order", command_info, None),
    "command|docs": ("command and subcommand table order", command_docs, None),
    "command|list": ("command table order", sorted_elements, None),
    "config|get": ("config table order", sorted_pairs, None),
    "time": ("the clock", time_reply, None),
    "slowlog|get": ("ids, times, durations and client addresses", slowlog_entries, None),
    "latency|histogram": ("timings and command table order", latency_histogram, None),
    "ttl": ("the clock", clock_integer, None),
    "pttl": ("the clock", clock_integer, None),
    "expiretime": ("the clock", clock_integer, None),
    "lastsave": ("the clock", clock_integer, None),
    "pexpiretime": ("the clock", clock_integer, None),
    "object|idletime": ("the clock, and Redis's shared integers", object_idletime, None),
    "randomkey": ("a random key", random_key, None),
    "memory|usage": ("each server's memory layout", memory_usage, None),
    "keys": ("hash table order", sorted_elements, None),
    "scan": ("hash table order", scan_keys, None),
    "dump": ("a set's hash table order, a stream's delivery and seen times", set_payload, None),
    "xpending": ("the clock (idle times)", xpending_times, None),
    "xinfo|consumers": ("the clock (idle times)", xinfo_consumers_times, None),
    "xinfo|stream": ("the clock (delivery and seen times)", xinfo_stream_times, None),
    "smembers": ("hash table order", sorted_elements, None),
    "sort": ("hash table order (BY a constant, ALPHA ties)", sort_reply, None),
    "sort_ro": ("hash table order (BY a constant, ALPHA ties)", sort_reply, None),
    "sinter": ("hash table order", sorted_elements, None),
    "sunion": ("hash table order", sorted_elements, None),
    "sdiff": ("hash table order", sorted_elements, None),
    "srandmember": ("hash table order (counts that take the whole set)", sorted_elements, None),
    "spop": ("hash table order (counts that take the whole set)", sorted_elements, None),
    "sscan": ("hash table order", scan_keys, None),
    "pubsub|channels": ("hash table order", sorted_elements, None),
    "pubsub|shardchannels": ("hash table order", sorted_elements, None),
    "hkeys": ("a hashtable's order (keys named ht*)", hash_elements, None),
    "hvals": ("a hashtable's order (keys named ht*)", hash_elements, None),
    "hgetall": ("a hashtable's order (keys named ht*)", hash_pairs, None),
    "hscan": ("a hashtable's order (keys named ht*)", hscan_pairs, None),
    "hrandfield": ("a hashtable's order (keys named ht*)", hrandfield_draws, None),
    "zscan": ("hash table order (a skiplist's members and scores)", scan_keys, None),
    "function|list": ("hash table order (libraries and their functions)", function_list, None),
    "function|dump": ("hash table order (libraries) and the checksum of it", function_dump, None),
}


# Inside EXEC only: OBJECT REFCOUNT of a value that a command earlier in the same transaction
# stored counts, on Redis, the queued command's own arguments, which hold the value until EXEC ends
# (SET's value is its argument object; INCRBYFLOAT rewrites its arguments to hold the new value):
# 2 where Keel, which keeps no such references, answers 1. An implementation detail of Redis's
# object sharing (docs/DESIGN.md's differences).
IN_EXEC_NORMALISERS = {
    "object|refcount": ("Redis also counts the transaction's queued arguments",
                        lambda value, args: Value(":", ERASED) if value.kind == ":" else value,
                        None),
}


def normaliser_for(args, in_exec=False):
    """The (name, why, function) that applies to a command's reply (`in_exec`: its reply inside
    EXEC's), or None."""
    if not args:
        return None
    names = [args[0].decode("latin-1").lower()]
    if len(args) > 1:
        names.insert(0, names[0] + "|" + args[1].decode("latin-1").lower())
    for name in names:
        for table in (IN_EXEC_NORMALISERS, NORMALISERS) if in_exec else (NORMALISERS,):
            if name in table:
                why, function, argc = table[name]
                return (name, why, function) if argc in (None, len(args)) else None
    return None


# --- Pub/sub: runs of values the random run reads as one (answers.py), each normalised whole. ---
# Both orders below follow a dict of Redis's with a hash seed drawn at every start, so they change
# from one redis-server run to the next.

def _is_confirmation(value):
    """Whether a value is an (un)subscribe confirmation: [kind, name, count]."""
    return value.kind in "*>" and value.data is not None and len(value.data) == 3 and \
        value.data[1].kind == "$"


def unsubscribe_all(values):
    """UNSUBSCRIBE and SUNSUBSCRIBE without names confirm the connection's channels in its channel
    dict's order: the names are sorted, each count stays in its place (the counts go down one by
    one in any order). PUNSUBSCRIBE's patterns are a list in Redis 7.0, compared in order."""
    places = [i for i, value in enumerate(values) if _is_confirmation(value)]
    names = sorted((values[i].data[1] for i in places), key=serialise)
    out = list(values)
    for i, name in zip(places, names):
        out[i] = Value(values[i].kind, [values[i].data[0], name, values[i].data[2]])
    return out


def _is_pattern_message(value):
    return value.kind in "*>" and value.data is not None and len(value.data) == 4 and \
        _is_key(value.data[0], b"pmessage")


def pattern_messages(values):
    """The messages one PUBLISH pushes to one connection: its channel's message first (compared in
    place), then a pmessage per matching pattern in the order of the server's pattern dict, sorted
    here among their places."""
    places = [i for i, value in enumerate(values) if _is_pattern_message(value)]
    ordered = sorted((values[i] for i in places), key=serialise)
    out = list(values)
    for i, value in zip(places, ordered):
        out[i] = value
    return out


UNSUBSCRIBE_ALL = ("hash table order (the connection's channels)", unsubscribe_all)
PUBLISHED = ("hash table order (the server's patterns)", pattern_messages)
