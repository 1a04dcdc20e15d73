"""Random arguments for the connection commands (Redis group "connection"): PING, ECHO, SELECT,
AUTH, HELLO, QUIT, RESET and the CLIENT subcommands Keel has."""


def ping(gen):
    count = gen.weighted([(60, 0), (37, 1), (3, 2)])
    return [gen.token("ping")] + [gen.value() for _ in range(count)]


def echo(gen):
    count = gen.weighted([(3, 0), (94, 1), (3, 2)])
    return [gen.token("echo")] + [gen.value() for _ in range(count)]


def select(gen):
    if gen.chance(0.03):
        return [gen.token("select")] + gen.pick([[], [b"0", b"1"]])
    return [gen.token("select"), gen.db_index()]


def _password(gen):
    return gen.pick([b"secret", b"", b"nopass", gen.binary(8)])


def _user(gen):
    return gen.pick([b"default", b"DEFAULT", b"alice", b""])


def auth(gen):
    # Without requirepass: the one-argument form is refused, the default user takes any password.
    count = gen.weighted([(40, 1), (50, 2), (5, 0), (5, 3)])
    args = [gen.token("auth")]
    if count == 2:
        return args + [_user(gen), _password(gen)]
    return args + [_password(gen) for _ in range(count)]


def hello(gen):
    args = [gen.token("hello")]
    if gen.chance(0.1):
        return args
    version = gen.weighted([(45, b"2"), (45, b"3"), (10, None)])
    args.append(version if version else gen.pick([b"1", b"4", b"0", b"-1", b"abc", b"", b"3.0"]))
    for _ in range(gen.weighted([(60, 0), (30, 1), (10, 2)])):
        roll = gen.rng.random()
        if roll < 0.4:
            args += [gen.token("setname"), gen.pick([b"hello-name", b"a b", b"", b"x\ny"])]
        elif roll < 0.8:
            args += [gen.token("auth"), _user(gen), _password(gen)]
        elif roll < 0.9:
            args += [gen.token(gen.pick(["auth", "setname"]))]  # missing values
        else:
            args.append(gen.junk_word())
    return args


def quit_(gen):
    # QUIT replies OK and closes the connection; the runner opens a new one.
    return [gen.token("quit")] + ([gen.value()] if gen.chance(0.2) else [])


def reset(gen):
    return [gen.token("reset")] + ([gen.value()] if gen.chance(0.1) else [])


CLIENT_NAMES = [b"alice", b"bob-2", b"", b"a b", b"a\nb", b"\x7f", b"!~{}[]", b"x" * 300]


def client_id(gen):
    return gen.name("client|id") + ([gen.value()] if gen.chance(0.05) else [])


def client_setname(gen):
    count = gen.weighted([(92, 1), (4, 0), (4, 2)])
    return gen.name("client|setname") + [gen.pick(CLIENT_NAMES) for _ in range(count)]


def client_getname(gen):
    return gen.name("client|getname") + ([gen.value()] if gen.chance(0.05) else [])


def client_info(gen):
    return gen.name("client|info") + ([gen.value()] if gen.chance(0.05) else [])


def _client_id_arg(gen):
    # {client_id} becomes this connection's id on each server (see run_diff.substitute). Other
    # ids must name no connection on either server: the two number their connections differently.
    return gen.weighted([(60, b"{client_id}"), (20, b"999999"),
                         (20, gen.integer_arg(lambda: gen.pick([0, 10 ** 9])))])


def client_list(gen):
    args = gen.name("client|list")
    for _ in range(gen.weighted([(50, 0), (40, 1), (10, 2)])):
        if gen.chance(0.5):
            kind = gen.pick([b"normal", b"NORMAL", b"master", b"replica", b"slave", b"pubsub",
                             b"foo", b""])
            args += [gen.token("type")] + ([kind] if gen.chance(0.95) else [])
        elif gen.chance(0.9):
            args += [gen.token("id")] + [_client_id_arg(gen) for _ in range(gen.rng.randint(0, 3))]
        else:
            args.append(gen.junk_word())
    return args


def client_help(gen):
    return gen.name("client|help")


def client_kill(gen):
    """Only forms that kill nobody: ids and addresses no connection has, and the errors."""
    roll = gen.rng.random()
    if roll < 0.25:
        return gen.name("client|kill") + [gen.pick([b"10.9.8.7:1234", b"nosuch", b":0"])]
    if roll < 0.8:
        filters = []
        for _ in range(gen.rng.randint(1, 3)):
            which = gen.pick(["ID", "TYPE", "ADDR", "LADDR", "SKIPME", "USER"])
            value = {"ID": b"%d" % gen.rng.randint(1000000, 2000000),
                     "TYPE": gen.pick([b"master", b"replica", b"nosuch"]),
                     "ADDR": b"10.9.8.7:1", "LADDR": b"10.9.8.7:2",
                     "SKIPME": gen.pick([b"yes", b"no", b"maybe"]),
                     "USER": gen.pick([b"nosuchuser", b"alice"])}[which]
            filters += [gen.token(which), value]
        # TYPE normal or USER default with nothing else would kill the runner's own connections.
        return gen.name("client|kill") + filters + [gen.token("ID"), b"999999999"]
    return gen.name("client|kill") + [gen.junk_word(), gen.junk_word()]


def client_unpause(gen):
    return gen.name("client|unpause") + ([] if gen.chance(0.95) else [gen.junk_word()])


def client_no_evict(gen):
    return gen.name("client|no-evict") + [gen.pick([b"on", b"OFF", b"maybe", b""])]


def client_pause(gen):
    return gen.name("client|pause") + [b"10"]


def client_reply(gen):
    return gen.name("client|reply") + [b"off"]


def client_no_touch(gen):
    return gen.name("client|no-touch") + [b"on"]


def client_tracking(gen):
    """Only forms that leave tracking off: a tracking connection would receive invalidations
    whenever keys change (active expiry included), which a one-command-one-reply run cannot
    place. The invalidations themselves are in conformance/cases/tracking.txt."""
    roll = gen.rng.random()
    if roll < 0.3:
        return gen.name("client|tracking") + [gen.pick([b"off", b"OFF"])]
    args = gen.name("client|tracking") + [gen.pick([b"on", b"ON", b"maybe", b""])]
    # Every ON below is refused: a missing redirect client, PREFIX without BCAST, OPTIN with
    # OPTOUT or BCAST, overlapping prefixes, or a syntax error.
    failure = gen.pick(["redirect", "prefix", "optin", "bcast", "overlap", "junk", "nonumber"])
    if failure == "redirect":
        args += [gen.token("redirect"), gen.pick([b"999999", b"0", b"-1"])]
    elif failure == "prefix":
        args += [gen.token("prefix"), gen.pick([b"a", b""])] + ([gen.token("noloop")]
                                                               if gen.chance(0.5) else [])
    elif failure == "optin":
        args += [gen.token("optin"), gen.token("optout")]
    elif failure == "bcast":
        args += [gen.token("bcast"), gen.token(gen.pick(["optin", "optout"]))]
    elif failure == "overlap":
        args += [gen.token("bcast"), gen.token("prefix"), b"ab", gen.token("prefix"), b"a"]
    elif failure == "nonumber":
        args += [gen.token("redirect"), gen.pick([b"x", b"1.5", b""])]
    else:
        args += [gen.junk_word()]
    return args


def client_caching(gen):
    # Refused while tracking is off (always here), whatever the argument.
    count = gen.weighted([(90, 1), (5, 0), (5, 2)])
    return gen.name("client|caching") + [gen.pick([b"yes", b"NO", b"maybe"]) for _ in range(count)]


def client_getredir(gen):
    return gen.name("client|getredir") + ([gen.value()] if gen.chance(0.05) else [])


def client_trackinginfo(gen):
    return gen.name("client|trackinginfo") + ([gen.value()] if gen.chance(0.05) else [])


def monitor(gen):
    return [gen.token("monitor")]


GENERATORS = {
    "client|kill": (0.5, client_kill),
    "client|unpause": (0.3, client_unpause),
    "client|no-evict": (0.3, client_no_evict),
    "ping": (2, ping),
    "echo": (2, echo),
    "select": (4, select),
    "auth": (1, auth),
    "hello": (1, hello),
    "quit": (0.2, quit_),
    "reset": (0.3, reset),
    "client|id": (0.5, client_id),
    "client|setname": (0.7, client_setname),
    "client|getname": (0.5, client_getname),
    "client|info": (0.5, client_info),
    "client|list": (0.7, client_list),
    "client|tracking": (0.4, client_tracking),
    "client|caching": (0.2, client_caching),
    "client|getredir": (0.2, client_getredir),
    "client|trackinginfo": (0.2, client_trackinginfo),
}

def client_unblock(gen):
    reason = [gen.rng.choice([b"TIMEOUT", b"ERROR", b"timeout", b"bad"])] if gen.chance(0.5) else []
    return [gen.token("client"), b"unblock", gen.integer_arg(lambda: gen.rng.randint(1, 50))] + reason


NOT_GENERATED = {
    "client|help": ("its text is a known gap (normalise.KNOWN_GAPS)", client_help),
    "client|pause": ("would hold the runner's own connections (conformance/cases/servercmds.txt "
                     "and the ServerTest unit tests cover it)", client_pause),
    "client|reply": ("OFF and SKIP silence the very replies the runner compares (covered by the "
                     "ServerTest unit tests)", client_reply),
    "client|no-touch": ("a Redis 7.2 command, absent from the 7.0 reference server",
                        client_no_touch),
    "client|unblock": ("the random run never has a blocked client to unblock (its blocking "
                       "commands time out before the next command is sent); the blocking case "
                       "file and the ListBlockTest unit tests cover it", client_unblock),
    "monitor": ("turns the connection into a monitor whose stream depends on the other "
                "connections' timing (covered by the ServerTest unit tests)", monitor),
}
