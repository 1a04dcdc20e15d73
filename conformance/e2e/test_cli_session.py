# A redis-cli session against keel-server: one connection (commands on redis-cli's standard input,
# --no-raw formatting) through PING, SET/GET with EX/NX/GET, DEL/EXISTS/DBSIZE, SELECT, CLIENT
# SETNAME/GETNAME, CONFIG GET/SET, COMMAND GETKEYS, INFO keyspace, unknown commands and HELLO 3/2.
# The expected transcript is what redis-server 7.0.15 prints for the same session (the connection
# id and the port are masked). Also: COMMAND COUNT agrees with COMMAND LIST, and a key set with PX
# actually expires.
import difflib
import re
import sys
import time

import keel_harness as h

# "> command" lines are sent; the lines after each are redis-cli's exact output for it.
SESSION = r'''
> PING
PONG
> PING "hello world"
"hello world"
> SET greeting hello
OK
> GET greeting
"hello"
> SET greeting world EX 100 GET
"hello"
> GET greeting
"world"
> SET greeting again NX GET
"world"
> SET fresh value NX GET
(nil)
> SET bad value EX 0
(error) ERR invalid expire time in 'set' command
> SET bad value EX soon
(error) ERR value is not an integer or out of range
> SET bad value EX 10 PX 10
(error) ERR syntax error
> INFO keyspace
# Keyspace
db0:keys=2,expires=1,avg_ttl=N
> DEL greeting fresh nosuch
(integer) 2
> EXISTS greeting fresh
(integer) 0
> SET a 1
OK
> SET b 2
OK
> EXISTS a b a nosuch
(integer) 3
> DBSIZE
(integer) 2
> SELECT 9
OK
> DBSIZE
(integer) 0
> SET nine 9
OK
> GET a
(nil)
> SELECT 16
(error) ERR DB index is out of range
> SELECT nine
(error) ERR value is not an integer or out of range
> CLIENT GETNAME
(nil)
> CLIENT SETNAME e2e-session
OK
> CLIENT GETNAME
"e2e-session"
> CLIENT SETNAME "bad name"
(error) ERR Client names cannot contain spaces, newlines or special characters.
> CONFIG GET maxmemory
1) "maxmemory"
2) "0"
> CONFIG SET maxmemory 1gb
OK
> CONFIG GET maxmemory
1) "maxmemory"
2) "1073741824"
> CONFIG SET maxmemory-policy sometimes
(error) ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction
> CONFIG GET no-such-parameter
(empty array)
> CONFIG SET no-such-parameter 1
(error) ERR Unknown option or number of arguments for CONFIG SET - 'no-such-parameter'
> CONFIG GET port
1) "port"
2) "PORT"
> COMMAND GETKEYS SET k v
1) "k"
> COMMAND GETKEYS DEL a b c
1) "a"
2) "b"
3) "c"
> COMMAND GETKEYS GET
(error) ERR wrong number of arguments for 'command|getkeys' command
> COMMAND GETKEYS NOSUCHCMD x
(error) ERR Invalid command specified
> INFO keyspace
# Keyspace
db0:keys=2,expires=0,avg_ttl=N
db9:keys=1,expires=0,avg_ttl=N
> NOSUCHCMD one two
(error) ERR unknown command 'NOSUCHCMD', with args beginning with: 'one' 'two' 
> nosuchcmd
(error) ERR unknown command 'nosuchcmd', with args beginning with: 
> HELLO 3
1# "server" => "redis"
2# "version" => "7.0.15"
3# "proto" => (integer) 3
4# "id" => (integer) ID
5# "mode" => "standalone"
6# "role" => "master"
7# "modules" => (empty array)
> CLIENT GETNAME
"e2e-session"
> CONFIG GET maxmemory
1# "maxmemory" => "1073741824"
> GET nine
"9"
> HELLO 4
(error) NOPROTO unsupported protocol version
> HELLO 2
 1) "server"
 2) "redis"
 3) "version"
 4) "7.0.15"
 5) "proto"
 6) (integer) 2
 7) "id"
 8) (integer) ID
 9) "mode"
10) "standalone"
11) "role"
12) "master"
13) "modules"
14) (empty array)
'''


def parse_session(session):
    """[(command, [expected output lines])] from the transcript."""
    blocks = []
    for line in session.strip("\n").split("\n"):
        if line.startswith("> "):
            blocks.append((line[2:], []))
        else:
            blocks[-1][1].append(line)
    return blocks


def mask(output, port):
    """Masks what differs between runs: connection ids, the port, INFO's sampled avg_ttl. INFO
    lines end in CRLF, which redis-cli prints as is; the CR is dropped here."""
    output = output.replace("\r\n", "\n")
    output = re.sub(r'("id" => \(integer\) )\d+', r"\1ID", output)
    output = re.sub(r"(^ 8\) \(integer\) )\d+", r"\1ID", output, flags=re.M)
    output = re.sub(r"avg_ttl=\d+", "avg_ttl=N", output)
    return output.replace(f'"{port}"', '"PORT"')


def first_divergence(blocks, actual_lines):
    """The first command whose output differs, assuming the ones before it matched."""
    position = 0
    for command, expected in blocks:
        got = actual_lines[position:position + len(expected)]
        if got != expected:
            return f"first differing command: {command}\n  expected {expected}\n  actual   {got}"
        position += len(expected)
    return "extra output after the last command"


def test_session():
    blocks = parse_session(SESSION)
    commands = "".join(command + "\n" for command, _ in blocks).encode()
    expected_lines = [line for _, lines in blocks for line in lines]
    with h.start_server() as server:
        result = h.redis_cli(server.port, ["--no-raw"], input_bytes=commands)
        h.check_equal(result.returncode, 0, "redis-cli exit code")
        h.check_equal(result.stderr, b"", "redis-cli stderr")
        actual_lines = mask(result.stdout.decode(), server.port).rstrip("\n").split("\n")
        if actual_lines != expected_lines:
            diff = "\n".join(difflib.unified_diff(expected_lines, actual_lines, "expected",
                                                  "actual", lineterm=""))
            raise h.TestFailure(f"redis-cli session transcript differs\n"
                                f"{first_divergence(blocks, actual_lines)}\n{diff}")


def test_command_count_and_expiry():
    with h.start_server() as server, server.connect() as conn:
        count = conn.command("COMMAND", "COUNT")
        listed = conn.command("COMMAND", "LIST")
        h.check(isinstance(count, int), f"COMMAND COUNT reply {count!r}")
        # COMMAND LIST also names subcommands ("config|get"); COMMAND COUNT counts commands.
        top_level = [name for name in listed if b"|" not in name]
        h.check_equal(count, len(top_level), "COMMAND COUNT vs the commands in COMMAND LIST")
        for name in ("get", "set", "del", "exists", "dbsize", "select", "hello", "client",
                     "config", "command", "info", "ping"):
            h.check(name.encode() in listed, f"COMMAND LIST lacks {name}: {listed!r}")

        h.check_equal(conn.command("SET", "short", "lived", "PX", "150"), "OK", "SET PX")
        h.check_equal(conn.command("EXISTS", "short"), 1, "EXISTS right after SET PX 150")
        deadline = time.monotonic() + 10.0
        while conn.command("GET", "short") is not None:
            h.check(time.monotonic() < deadline, "a key SET with PX 150 still exists after 10s")
            time.sleep(0.05)
        h.check_equal(conn.command("DBSIZE"), 0, "DBSIZE after the key expired")


if __name__ == "__main__":
    sys.exit(h.main({"session": test_session,
                     "command_count_and_expiry": test_command_count_and_expiry}))
