"""Every normalisation the differential runner applies, in one place.

A reply is compared byte for byte unless its command is named in NORMALISERS below; then both
replies are parsed, passed through the same function and serialised again before comparing. A
normaliser only erases what differs between two correct servers run side by side (connection ids,
addresses, timings, memory sizes, the order of hash-table walks); it does not change a reply's
shape, so a missing field, an extra field or a wrong type still shows. Two exceptions are named
below and nowhere else: a field Keel adds to INFO on purpose (INFO_KEEL_ONLY_FIELDS), and what
Keel does not have yet (KNOWN_GAP_INFO_SECTIONS, listed in KNOWN_GAPS, which the runner prints
after every run). Error replies are never normalised.
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
# Fields Keel adds to Redis's INFO on purpose; dropped from Keel's reply.
INFO_KEEL_ONLY_FIELDS = {b"keel_version"}


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


# --- Replies that walk a hash table: the same elements, in an order that depends on hashing. ---

def sorted_elements(value, args):
    if value.kind in "*~" and value.data is not None:
        return Value(value.kind, sorted(value.data, key=_serialised_key))
    return value


def sorted_pairs(value, args):
    pairs = _pairs(value)
    if pairs is None:
        return value
    return _from_pairs(value, sorted(pairs, key=lambda pair: _serialised_key(pair[0])))


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
KNOWN_GAP_INFO_SECTIONS = {
    # Per-command latency percentiles need a latency histogram per command in the engine's
    # statistics (engine/server/stats.h, recorded by Engine::Execute).
    b"# Latencystats",
}
# Command -> what Keel lacks in it. The runners print these after every run, and
# docs/COMPATIBILITY.md (conformance/compat/compatibility.py) marks these commands partial.
KNOWN_GAPS = {
    "info": "the Latencystats section (no per-command latency histograms yet); Keyspace counts "
            "expired keys until they are touched (no active expiry yet, see DBSIZE)",
    "dbsize": "counts keys whose time has passed until something touches them: Keel has no "
              "active expiry cycle yet (Redis removes them in the background, within a few "
              "hundred milliseconds); the tests set no key that expires during a run",
    "client|help": "lists only the CLIENT subcommands Keel has (only its arity error is compared)",
}


# Command ("name" or "container|subcommand", lowercase) -> (why, function(value, args), argc):
# the function applies to that command's replies, only with exactly `argc` arguments when argc is
# not None ("COMMAND" alone lists the whole table; with names, COMMAND INFO and DOCS list them in
# the order asked for, which is compared, and only subcommands are sorted).
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
}


def normaliser_for(args):
    """The (name, why, function) that applies to a command, or None."""
    if not args:
        return None
    names = [args[0].decode("latin-1").lower()]
    if len(args) > 1:
        names.insert(0, names[0] + "|" + args[1].decode("latin-1").lower())
    for name in names:
        if name in NORMALISERS:
            why, function, argc = NORMALISERS[name]
            return (name, why, function) if argc in (None, len(args)) else None
    return None
