"""Random arguments for the scripting commands (Redis group "scripting"): EVAL, EVALSHA, EVAL_RO,
EVALSHA_RO and SCRIPT; FCALL, FCALL_RO and FUNCTION.

A random script runs one of the data commands below through redis.call or redis.pcall (with the
arguments that command's own generator draws, passed as ARGV so that any bytes survive), in
RESP2 or, after redis.setresp(3), RESP3, and returns the reply converted to Lua and back, its
type, or a Lua value of its own (numbers, nested tables, the special tables err, ok, double,
map, set...). Only commands whose replies are the same on two correct servers are used: a
reply inside a script's reply is out of the normalisers' reach (normalise.py), so anything
random, timed or unordered (RANDOMKEY, SPOP, TTL, SMEMBERS of a large set) stays out.
"""

# Commands with deterministic replies whatever the encoding: redis.call runs them.
_CALLED = ["get", "set", "incr", "incrby", "decr", "append", "strlen", "getrange", "setrange",
           "mget", "mset", "getset", "setnx", "del", "exists", "type", "lpush", "rpush",
           "lrange", "llen", "lpop", "rpop", "lindex", "hset", "hget", "hlen", "hexists", "hdel",
           "sadd", "scard", "sismember", "srem", "zadd", "zscore", "zrank", "zrange", "zcard",
           "zincrby", "zrem", "incrbyfloat", "ping", "echo", "nosuchcommand"]

# Scripts EVALSHA finds after SCRIPT LOAD (their SHA1s are the same on both servers).
_LOADED = [b"return 'loaded'", b"return redis.call('get', KEYS[1])",
           b"return redis.call('incr', KEYS[1])", b"return {1, 2.5, 'three'}",
           b"#!lua flags=no-writes\nreturn redis.call('exists', KEYS[1])"]
_LOADED_SHA = [b"b66e8b4bc1f4a0d9e44e8bcd0ba13ab2d0ee1a2f"]  # never loaded: NOSCRIPT


def _sha1(body):
    import hashlib
    return hashlib.sha1(body).hexdigest().encode()


def _lua_literal(gen, depth=0):
    kind = gen.weighted([(20, "int"), (10, "float"), (20, "string"), (5, "bool"), (3, "nil"),
                         (12 if depth < 3 else 0, "array"), (3, "status"), (3, "error"),
                         (2, "double"), (2, "map"), (2, "set"), (1, "big"), (1, "verbatim")])
    if kind == "int":
        return b"%d" % gen.integer()
    if kind == "float":
        return gen.pick([b"1.5", b"-2.7", b"0.1", b"1e20", b"-1e20", b"3.99", b"0/0", b"1/0"])
    if kind == "string":
        return gen.pick([b"'x'", b"''", b"'hello world'", b"'a\\r\\nb'", b"'\\0\\1'"])
    if kind == "bool":
        return gen.pick([b"true", b"false"])
    if kind == "nil":
        return b"nil"
    if kind == "array":
        items = [_lua_literal(gen, depth + 1) for _ in range(gen.rng.randint(0, 4))]
        return b"{" + b", ".join(items) + b"}"
    if kind == "status":
        return gen.pick([b"{ok='OK'}", b"{ok='x y'}", b"redis.status_reply('S')"])
    if kind == "error":
        return gen.pick([b"{err='ERR e'}", b"{err='CODE x'}", b"redis.error_reply('my')"])
    if kind == "double":
        return gen.pick([b"{double=1.5}", b"{double=-0.0}", b"{double=1e300}"])
    if kind == "map":
        return gen.pick([b"{map={a=1}}", b"{map={}}", b"{map={k={1, 2}}}"])
    if kind == "set":
        return gen.pick([b"{set={a=true}}", b"{set={}}"])
    if kind == "big":
        return b"{big_number='123456789012345678901234567890'}"
    return b"{verbatim_string={format='txt', string='v'}}"


def _call_script(gen):
    call = gen.pick([b"redis.call", b"redis.pcall"])
    body = gen.weighted([
        (40, b"return %s(unpack(ARGV))" % call),
        (10, b"local r = %s(unpack(ARGV)) return type(r)" % call),
        (10, b"return {%s(unpack(ARGV))}" % call),
        (5, b"return {pcall(%s, unpack(ARGV))}" % call),
        (5, b"local r = %s(unpack(ARGV)) if type(r) == 'table' then return #r end return r" % call),
    ])
    if gen.chance(0.3):
        body = b"redis.setresp(3) " + body
    return body


def _eval(name):
    def generate(gen):
        roll = gen.rng.random()
        if roll < 0.55:
            command = gen.pick(_CALLED)
            args = gen.args_for(command) if command in gen.generators else [command.encode()]
            return [gen.token(name), _call_script(gen), b"0"] + args
        if roll < 0.85:
            return [gen.token(name), b"return " + _lua_literal(gen), b"0"]
        if roll < 0.92:
            keys = gen.keys(0, 3)
            return ([gen.token(name), b"return {KEYS, ARGV, #KEYS, #ARGV}", b"%d" % len(keys)] +
                    keys + [gen.value() for _ in range(gen.rng.randint(0, 2))])
        return [gen.token(name), gen.pick([b"error('x')", b"x = 1", b"return nosuch", b"syntax (",
                                           b"return redis.call()", b"#!lua flags=bad\nreturn 1",
                                           b"#!lua flags=no-writes\nreturn redis.call('set','k','v')"]),
                gen.integer_arg(lambda: 0)]
    return generate


def _evalsha(name):
    def generate(gen):
        body = gen.pick(_LOADED)
        sha = _sha1(body) if gen.chance(0.8) else gen.pick(_LOADED_SHA + [b"abc"])
        if gen.chance(0.2):
            sha = sha.upper()
        return [gen.token(name), sha, b"1", gen.key()]
    return generate


def script_load(gen):
    return gen.name("script|load") + [gen.pick(_LOADED + [b"syntax (", b"return 2"])]


def script_exists(gen):
    return gen.name("script|exists") + [
        _sha1(gen.pick(_LOADED)) if gen.chance(0.7) else gen.pick(_LOADED_SHA + [b"x"])
        for _ in range(gen.rng.randint(0, 3))]


def script_flush(gen):
    return gen.name("script|flush") + gen.subset([gen.token("async"), gen.token("sync"),
                                                   b"bad"], 1)


def script_kill(gen):
    return gen.name("script|kill") + ([b"x"] if gen.chance(0.1) else [])


def script_help(gen):
    return gen.name("script|help") + ([b"x"] if gen.chance(0.1) else [])


# Functions: a few libraries (and broken codes) that FUNCTION LOAD draws from, whose functions
# FCALL calls with the keys and arguments drawn; the libraries come and go with DELETE, FLUSH and
# RESTORE, so every reply (a function found or not, a library existing or not) is deterministic.
_LIBRARIES = [
    b"#!lua name=glib\nredis.register_function('gget', function(keys) "
    b"return redis.call('get', keys[1]) end)\n"
    b"redis.register_function{function_name='gset', flags={'allow-oom'}, description='sets', "
    b"callback=function(keys, args) return redis.call('set', keys[1], args[1]) end}",
    b"#!lua name=rlib\nredis.register_function{function_name='rexists', flags={'no-writes'}, "
    b"callback=function(keys) return redis.call('exists', unpack(keys)) end}",
    b"#!lua name=elib\nredis.register_function('eargs', function(keys, args) "
    b"return {keys, args, #keys, #args} end)\n"
    b"redis.register_function('eerr', function() return redis.call('nosuchcommand') end)",
    b"#!lua name=RLIB\nredis.register_function('RLIB_F', function() return 'upper' end)",
    b"#!lua name=clash\nredis.register_function('GGET', function() return 'clash' end)",
]
_BROKEN_LIBRARIES = [b"#!lua name=bad\nreturn 1", b"#!lua name=bad\nreturn redis.call('ping')",
                     b"#!lua\nreturn 1", b"no shebang", b"#!lua name=bad\nsyntax (",
                     b"#!lua name=bad\nredis.register_function('x', 1)"]
_FUNCTIONS = [b"gget", b"gset", b"rexists", b"eargs", b"eerr", b"RLIB_F", b"GGET", b"nosuch"]
_LIBRARY_NAMES = [b"glib", b"rlib", b"elib", b"RLIB", b"clash", b"nosuch"]
# FUNCTION DUMP of library rlib alone (redis-server 7.0.15's bytes, RDB version 10).
_RLIB_PAYLOAD = bytes.fromhex(
    "f5c34086409c1f23216c7561206e616d653d726c69620a72656469732e72656769737465725f6607756e"
    "6374696f6e7bc008005f602a032772657820201f73272c20666c6167733d7b276e6f2d77726974657327"
    "7d2c2063616c6c626163016b3dc0360c286b657973292072657475726e200640644024012827e0004802"
    "756e7020318028052920656e647d0a00989229a8af5764a1")


def _fcall(name):
    def generate(gen):
        keys = gen.keys(0, 2)
        args = [gen.value() for _ in range(gen.rng.randint(0, 2))]
        numkeys = b"%d" % len(keys) if gen.chance(0.95) else gen.pick([b"-1", b"x", b"99"])
        return [gen.token(name), gen.pick(_FUNCTIONS), numkeys] + keys + args
    return generate


def function_load(gen):
    code = gen.pick(_LIBRARIES) if gen.chance(0.8) else gen.pick(_BROKEN_LIBRARIES)
    return gen.name("function|load") + ([gen.token("replace")] if gen.chance(0.4) else []) + [code]


def function_delete(gen):
    return gen.name("function|delete") + [gen.pick(_LIBRARY_NAMES)]


def function_flush(gen):
    return gen.name("function|flush") + gen.subset([gen.token("async"), gen.token("sync")], 1)


def function_list(gen):
    args = []
    if gen.chance(0.4):
        args += [gen.token("libraryname"), gen.pick([b"*", b"r*", b"?lib", b"nosuch", b"GLIB"])]
    if gen.chance(0.4):
        args.append(gen.token("withcode"))
    return gen.name("function|list") + args


def function_restore(gen):
    payload = _RLIB_PAYLOAD if gen.chance(0.9) else gen.pick([b"", b"x" * 12, _RLIB_PAYLOAD[:-1]])
    policy = gen.subset([gen.token("append"), gen.token("replace"), gen.token("flush")], 1)
    return gen.name("function|restore") + [payload] + policy


def _bare(name):
    return lambda gen: gen.name(name) + ([b"x"] if gen.chance(0.05) else [])


GENERATORS = {
    "eval": (6, _eval("eval")),
    "eval_ro": (2, _eval("eval_ro")),
    "evalsha": (2, _evalsha("evalsha")),
    "evalsha_ro": (1, _evalsha("evalsha_ro")),
    "script|load": (1, script_load),
    "script|exists": (1, script_exists),
    "script|flush": (0.1, script_flush),
    "script|kill": (0.2, script_kill),
    "script|help": (0.1, script_help),
    "fcall": (3, _fcall("fcall")),
    "fcall_ro": (1, _fcall("fcall_ro")),
    "function|load": (2, function_load),
    "function|delete": (0.5, function_delete),
    "function|flush": (0.1, function_flush),
    "function|list": (0.5, function_list),
    "function|dump": (0.3, _bare("function|dump")),
    "function|restore": (0.3, function_restore),
    "function|stats": (0.3, _bare("function|stats")),
    "function|kill": (0.1, _bare("function|kill")),
    "function|help": (0.05, _bare("function|help")),
}
