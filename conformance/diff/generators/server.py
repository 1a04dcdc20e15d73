"""Random arguments for the server commands (Redis group "server"): DBSIZE, FLUSHDB, FLUSHALL,
INFO, SHUTDOWN (never a form that stops a server), CONFIG and COMMAND; and the pseudo-entries
that apply to the whole table: unknown commands and subcommands, and wrong arity."""


def dbsize(gen):
    return [gen.token("dbsize")] + ([gen.value()] if gen.chance(0.03) else [])


def _flush_options(gen):
    return [gen.token(gen.pick(["sync", "async"])) if gen.chance(0.8) else gen.junk_word()
            for _ in range(gen.weighted([(70, 0), (25, 1), (5, 2)]))]


def flushdb(gen):
    return [gen.token("flushdb")] + _flush_options(gen)


def flushall(gen):
    return [gen.token("flushall")] + _flush_options(gen)


INFO_SECTIONS = ["server", "clients", "memory", "persistence", "stats", "replication", "cpu",
                 "modules", "errorstats", "cluster", "keyspace", "commandstats", "latencystats",
                 "default", "all", "everything", "foo", ""]


def info(gen):
    return [gen.token("info")] + [gen.token(gen.pick(INFO_SECTIONS))
                                  for _ in range(gen.weighted([(40, 0), (45, 1), (15, 3)]))]


SHUTDOWN_FLAGS = ["nosave", "save", "now", "force", "abort"]


def shutdown(gen):
    """Only forms that Redis 7.0 refuses (a word that is no flag, SAVE with NOSAVE, ABORT with
    another flag) or ABORT alone with no shutdown in progress: none may stop a server."""
    flags = gen.subset(SHUTDOWN_FLAGS, 3)
    roll = gen.rng.random()
    if roll < 0.3:
        flags = ["abort"]
    elif roll < 0.5:
        flags += ["save", "nosave"]
    elif roll < 0.7 and flags and "abort" not in flags:
        flags.append("abort")
    else:
        flags.insert(gen.rng.randint(0, len(flags)), None)
    gen.rng.shuffle(flags)
    return [gen.token("shutdown")] + [gen.token(f) if f else gen.junk_word() for f in flags]


# CONFIG: parameters whose values may change during a run without making the two servers differ
# for reasons other than a bug (no port, bind, dir, persistence, memory limit near the data size,
# password, client timeouts or limits), with plausible and implausible values.
CONFIG_VALUES = {
    "maxmemory-policy": [b"noeviction", b"allkeys-lru", b"volatile-ttl", b"sometimes", b""],
    "maxmemory-samples": [b"5", b"10", b"0", b"-1", b"x"],
    "maxmemory": [b"0", b"1gb", b"2GB", b"-1", b"1zb", b"abc"],  # far above the data size
    "lazyfree-lazy-user-del": [b"yes", b"no", b"YES", b"maybe"],
    "lazyfree-lazy-user-flush": [b"yes", b"no", b""],
    "slowlog-log-slower-than": [b"10000", b"-1", b"0", b"1.5"],
    "slowlog-max-len": [b"128", b"0", b"-5"],
    "latency-monitor-threshold": [b"0", b"100", b"-1"],
    # Not 0: the shared keys' hashes would become hashtables, whose field order the random run
    # cannot compare (generators/hash.py); conformance/cases/hash.txt sets 0, 2 and 3.
    "hash-max-listpack-entries": [b"128", b"512", b"-1"],
    "hash-max-ziplist-entries": [b"64", b"x"],
    "list-max-listpack-size": [b"-2", b"-5", b"-6", b"128"],
    "set-max-intset-entries": [b"512", b"1"],
    "zset-max-listpack-value": [b"64", b"1kb"],
    "notify-keyspace-events": [b"", b"KEA", b"Kx", b"q"],
    "active-expire-effort": [b"1", b"10", b"11", b"0"],
    "hz": [b"10", b"1", b"500", b"501", b"0", b"-1"],
    "timeout": [b"0", b"-1", b"x"],
    "daemonize": [b"yes", b"no"],  # immutable: always refused
    "nosuchparameter": [b"1"],
}
CONFIG_GET_PATTERNS = [b"max*", b"*policy*", b"list-*", b"lazyfree-*", b"*-max-*", b"h?",
                       b"[hm]a*", b"nosuch*", b"", b"maxmemory", b"databases", b"save",
                       b"appendonly", b"hash-max-ziplist-entries", b"HZ", b"Maxmemory-Policy"]


def config_get(gen):
    names = list(CONFIG_VALUES) + [p.decode() for p in CONFIG_GET_PATTERNS]
    count = gen.weighted([(5, 0), (70, 1), (25, 3)])
    return gen.name("config|get") + [gen.pick(names).encode() for _ in range(count)]


def config_set(gen):
    args = gen.name("config|set")
    for _ in range(gen.weighted([(80, 1), (15, 2), (5, 3)])):
        name = gen.pick(sorted(CONFIG_VALUES))
        args += [name.encode(), gen.pick(CONFIG_VALUES[name])]
    if gen.chance(0.05):
        args.pop()  # a name without a value
    return args


def config_resetstat(gen):
    return gen.name("config|resetstat") + ([gen.value()] if gen.chance(0.1) else [])


def config_rewrite(gen):
    # The servers run without a config file: always refused.
    return gen.name("config|rewrite") + ([gen.value()] if gen.chance(0.1) else [])


def config_help(gen):
    return gen.name("config|help") + ([gen.value()] if gen.chance(0.1) else [])


# COMMAND: Keel has fewer commands than Redis, so only forms that name commands Keel has (or none
# at all) are compared; the whole-table forms are in NOT_GENERATED.

def _command_names(gen, count_max):
    names = []
    for _ in range(gen.rng.randint(1, count_max)):
        if gen.chance(0.85):
            name = gen.command_name(complete=True)
            names.append(name.encode() if gen.chance(0.7) else name.upper().encode())
        else:
            names.append(gen.pick([b"nosuchcommand", b"", b"client|nosuch", b"get|x", b"|"]))
    return names


def command_info(gen):
    return gen.name("command|info") + _command_names(gen, 4)


def command_docs(gen):
    return gen.name("command|docs") + _command_names(gen, 4)


def _getkeys(gen, name):
    if gen.chance(0.05):
        return gen.name(name)  # wrong arity
    if gen.chance(0.1):
        target = [gen.pick([b"nosuchcommand", b"ping", b"client", b""])] + gen.keys(0, 2)
    elif gen.chance(0.6):
        target = gen.args_for(gen.data_command_name())  # one that takes keys, mostly
    else:
        target = gen.args_for(gen.command_name())
    return gen.name(name) + target


def command_getkeys(gen):
    return _getkeys(gen, "command|getkeys")


def command_getkeysandflags(gen):
    return _getkeys(gen, "command|getkeysandflags")


def command_list(gen):
    args = gen.name("command|list")
    roll = gen.rng.random()
    if roll < 0.6:
        # A pattern that can only match commands Keel has: a name exactly, or nothing.
        pattern = gen.pick([gen.command_name().encode(), b"nosuch*", b"", b"zz?"])
        return args + [gen.token("filterby"), gen.token("pattern"), pattern]
    if roll < 0.75:
        return args + [gen.token("filterby"), gen.token(gen.pick(["aclcat", "module"])),
                       gen.pick([b"nosuchcategory", b"@string", b"foo"])]
    return args + gen.pick([[gen.token("filterby")], [gen.token("filterby"), b"foo", b"bar"],
                            [b"foo"], [gen.token("filterby"), gen.token("pattern")],
                            [gen.token("filterby"), gen.token("pattern"), b"a", b"b"]])


def command_help(gen):
    return gen.name("command|help") + ([gen.value()] if gen.chance(0.1) else [])


def command_whole_table(gen):
    return [gen.token("command")]


def command_count(gen):
    return gen.name("command|count")


# Pseudo-entries ------------------------------------------------------------------------------

def unknown_command(gen):
    """A name no Redis command has (so Redis and Keel both refuse it), with arguments."""
    name = gen.pick([b"nosuch", b"foo", b"", b" ", b"get\r\n", b"x" * 140, b"\x00\xff"])
    return [name] + [gen.value() for _ in range(gen.rng.randint(0, 3))]


def unknown_subcommand(gen):
    """An unknown subcommand of a container Keel has; never a real Redis subcommand."""
    container = gen.pick([b"client", b"config", b"command"])
    return [gen.token(container), gen.pick([b"nosuch", b"", b"sub\x00", b"x" * 140])] + \
        [gen.value() for _ in range(gen.rng.randint(0, 2))]


def wrong_arity(gen):
    """Any command Keel has with one argument too few or too many for its arity."""
    while True:
        name = gen.command_name()
        arity = gen.commands[name]
        words = len(name.split("|"))
        if arity > 0 and (arity > words or gen.chance(0.5)):
            count = arity + gen.pick([-1, 1]) if arity > words else arity + 1
        elif arity < 0 and -arity > words:
            count = -arity - 1
        else:
            continue  # no argument count is wrong for it (SHUTDOWN, QUIT, ...)
        return gen.name(name) + [gen.key() for _ in range(count - words)]


def time_(gen):
    return [gen.token("time")] + ([] if gen.chance(0.95) else [gen.junk_word()])


def lastsave(gen):
    return [gen.token("lastsave")] + ([] if gen.chance(0.95) else [gen.junk_word()])


def debug(gen):
    """DEBUG is refused alike by both servers with enable-debug-command no (the default)."""
    sub = gen.pick([b"sleep", b"log", b"protocol", b"help", b"set-active-expire", b"nosuch"])
    return [gen.token("debug"), gen.token(sub)] + [gen.value() for _ in range(gen.rng.randint(0, 2))]


def slowlog_reset(gen):
    return gen.name("slowlog|reset") + ([] if gen.chance(0.95) else [gen.junk_word()])


def slowlog_help(gen):
    return gen.name("slowlog|help")


def slowlog_get(gen):
    return gen.name("slowlog|get")


def slowlog_len(gen):
    return gen.name("slowlog|len")


def latency(gen, sub):
    return gen.name("latency|" + sub)


def memory_usage(gen):
    args = gen.name("memory|usage") + [gen.key()]
    if gen.chance(0.3):
        args += [gen.token("SAMPLES"), gen.integer_arg(lambda: gen.rng.randint(-1, 10))]
    if gen.chance(0.03):
        args.append(gen.junk_word())
    return args


GENERATORS = {
    "memory|usage": (0.5, memory_usage),
    "memory|help": (0.1, lambda gen: gen.name("memory|help")),
    "memory|purge": (0.1, lambda gen: gen.name("memory|purge")),
    "time": (0.5, time_),
    "lastsave": (0.3, lastsave),
    "debug": (0.5, debug),
    "slowlog|reset": (0.3, slowlog_reset),
    "slowlog|help": (0.2, slowlog_help),
    "latency|help": (0.2, lambda gen: latency(gen, "help")),
    "dbsize": (2, dbsize),
    "flushdb": (0.3, flushdb),
    "flushall": (0.15, flushall),
    "info": (0.7, info),
    "shutdown": (0.3, shutdown),
    "config|get": (1, config_get),
    "config|set": (1, config_set),
    "config|resetstat": (0.2, config_resetstat),
    "config|rewrite": (0.1, config_rewrite),
    "config|help": (0.1, config_help),
    "command|info": (0.5, command_info),
    "command|docs": (0.5, command_docs),
    "command|getkeys": (1, command_getkeys),
    "command|getkeysandflags": (1, command_getkeysandflags),
    "command|list": (0.5, command_list),
    "command|help": (0.1, command_help),
    "(unknown command)": (1, unknown_command),
    "(unknown subcommand)": (0.5, unknown_subcommand),
    "(wrong arity)": (2, wrong_arity),
}

def save(gen):
    return [gen.token("save")] + ([] if gen.chance(0.9) else [gen.junk_word()])


def bgsave(gen):
    return [gen.token("bgsave")] + ([] if gen.chance(0.8) else
                                    [gen.token("schedule") if gen.chance(0.5) else gen.junk_word()])


def bgrewriteaof(gen):
    return [gen.token("bgrewriteaof")] + ([] if gen.chance(0.9) else [gen.junk_word()])


NOT_GENERATED = {
    "bgrewriteaof": ("writes files; Redis's forked child finishes at its own pace, so whether the "
                     "next BGREWRITEAOF or BGSAVE is refused differs by timing "
                     "(conformance/cases/aof.txt and e2e/test_aof_interop.py cover it)",
                     bgrewriteaof),
    "save": ("writes a file; a fork's timing decides what a save that overlaps another answers "
             "(conformance/cases/persistence.txt and e2e/test_rdb_interop.py cover it)", save),
    "bgsave": ("Redis's forked child finishes at its own pace, so whether the next BGSAVE is "
               "refused differs by timing (conformance/cases/persistence.txt covers the replies)",
               bgsave),
    "slowlog|get": ("its entries depend on how long commands took", slowlog_get),
    "slowlog|len": ("depends on how long commands took", slowlog_len),
    "latency|latest": ("depends on how long commands took", lambda gen: latency(gen, "latest")),
    "latency|history": ("depends on how long commands took",
                        lambda gen: latency(gen, "history")),
    "latency|histogram": ("depends on how long commands took",
                          lambda gen: latency(gen, "histogram")),
    "latency|reset": ("its count depends on how long commands took",
                      lambda gen: latency(gen, "reset")),
    "memory|stats": ("describes the process's memory", lambda gen: gen.name("memory|stats")),
    "memory|doctor": ("reasons about the process's memory",
                      lambda gen: gen.name("memory|doctor")),
    "memory|malloc-stats": ("the allocator's own report: Debian's redis-server uses jemalloc, Keel "
                            "glibc's malloc", lambda gen: gen.name("memory|malloc-stats")),
    "latency|doctor": ("its report depends on how long commands took",
                       lambda gen: latency(gen, "doctor")),
    "latency|graph": ("depends on how long commands took", lambda gen: latency(gen, "graph")),
    "command": ("COMMAND alone lists Redis's whole command table; Keel has fewer commands until "
                "every family is in (compared by name in conformance/cases/command.txt)",
                command_whole_table),
    "command|count": ("counts Redis's whole command table; Keel has fewer commands",
                      command_count),
}
