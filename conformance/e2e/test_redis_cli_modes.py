# redis-cli's other modes against keel-server, each compared with redis-server's output for the
# same steps (the port and connection ids masked): a real interactive session in a pseudo-terminal
# (prompts that follow SELECT, HELP built from COMMAND DOCS, RESP3 maps after HELLO 3), one-shot
# commands with --raw/--no-raw, -n, -x, -e and --csv, and --scan and --eval, which are skipped with
# a message until keel-server has SCAN and EVAL. (The stdin session and --pipe mass insertion are
# test_cli_session.py and test_pipe_mass_insert.py.)
import os
import pty
import re
import select
import signal
import sys
import tempfile
import time

import keel_harness as h

PROMPT_TIMEOUT_S = 20.0

TTY_COMMANDS = [
    "PING", "SET greeting hello", "GET greeting", "SELECT 2", "GET greeting",
    'SET phrase "hello world"', "GET phrase", "DBSIZE", "HELP SET", "HELP GET", "HELLO 3",
    "GET phrase", "CLIENT SETNAME cli", "CLIENT GETNAME", "NOSUCH a", "SET x y EX 0",
    "SELECT 0", "DEL greeting", "EXISTS greeting",
]


def mask(text, port):
    text = text.replace(str(port), "PORT")
    text = re.sub(r'("id" => \(integer\) )\d+', r"\1ID", text)
    return text


def tty_session(server):
    """redis-cli in a pseudo-terminal (TERM=dumb: prompts and replies, no line-editing escapes),
    typing one command per prompt. Returns the masked transcript."""
    cli = h.tool("redis-cli")
    pid, fd = pty.fork()
    if pid == 0:  # the child: becomes redis-cli on the terminal
        os.execve(cli, [cli, "-p", str(server.port)], dict(os.environ, TERM="dumb"))
    transcript = []
    try:
        def read_to_prompt():
            data = b""
            deadline = time.monotonic() + PROMPT_TIMEOUT_S
            while not data.endswith(b"> "):
                h.check(time.monotonic() < deadline, f"no prompt from redis-cli; got {data!r}")
                ready, _, _ = select.select([fd], [], [], 0.5)
                if ready:
                    chunk = os.read(fd, 65536)
                    h.check(chunk != b"", f"redis-cli ended; got {data!r}")
                    data += chunk
            transcript.append(data.decode(errors="replace").replace("\r\n", "\n"))

        read_to_prompt()
        for command in TTY_COMMANDS:
            os.write(fd, command.encode() + b"\n")
            read_to_prompt()
        os.write(fd, b"quit\n")
        _, status = os.waitpid(pid, 0)
        pid = None
        h.check_equal(os.waitstatus_to_exitcode(status), 0, "redis-cli exit code after quit")
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    text = mask("".join(transcript), server.port)
    # What the steps must show, on either server.
    for fragment in ["PORT> GET greeting\n\"hello\"\n", "PORT[2]> GET greeting\n(nil)\n",
                     "PORT[2]> DBSIZE\n(integer) 1\n", "summary:\x1b[0m Set the string value",
                     '3# "proto" => (integer) 3\n', "PORT[2]> CLIENT GETNAME\n\"cli\"\n",
                     "(error) ERR unknown command 'NOSUCH', with args beginning with: 'a' \n",
                     "(error) ERR invalid expire time in 'set' command\n",
                     "PORT> EXISTS greeting\n(integer) 0\n"]:
        h.check_contains(text, fragment, "the interactive transcript")
    return text


def test_tty():
    redis_text, keel_text = h.on_redis_then_keel(tty_session)
    h.check_equal(keel_text.splitlines(), redis_text.splitlines(),
                  "interactive transcript, keel vs redis")


# One-shot invocations: (arguments after -p PORT, standard input, expected stdout).
ONE_SHOT = [
    (["SET", "name", "Ada Lovelace"], None, "OK\n"),
    (["GET", "name"], None, "Ada Lovelace\n"),  # not a terminal: --raw by default
    (["--no-raw", "GET", "name"], None, '"Ada Lovelace"\n'),
    (["--raw", "GET", "missing"], None, "\n"),
    (["--no-raw", "GET", "missing"], None, "(nil)\n"),
    (["-n", "3", "SET", "in3", "x"], None, "OK\n"),
    (["-n", "3", "DBSIZE"], None, "1\n"),
    (["DBSIZE"], None, "1\n"),
    (["-x", "SET", "from-stdin"], b"line one\nline two\n", "OK\n"),
    (["--no-raw", "GET", "from-stdin"], None, '"line one\\nline two\\n"\n'),
    (["--csv", "EXISTS", "name", "from-stdin", "missing"], None, "2\n"),
    (["--csv", "GET", "name"], None, '"Ada Lovelace"\n'),
    (["-e", "SET", "bad", "v", "EX", "0"], None, ""),  # -e: the error goes to stderr
    # Without a terminal an error reply is printed with an empty line after it.
    (["SET", "bad", "v", "EX", "0"], None, "ERR invalid expire time in 'set' command\n\n"),
    (["-3", "--no-raw", "HELLO"], None, None),  # a RESP3 map; compared with redis only
    (["--no-raw", "CONFIG", "GET", "maxmemory"], None, '1) "maxmemory"\n2) "0"\n'),
    (["DEL", "name", "from-stdin", "missing"], None, "2\n"),
]


def one_shot(server):
    outputs = []
    for args, stdin, expected in ONE_SHOT:
        result = h.redis_cli(server.port, args, input_bytes=stdin or b"")
        output = mask(result.stdout.decode(errors="replace"), server.port)
        what = f"redis-cli {' '.join(args)}"
        if expected is not None:
            h.check_equal(output, expected, f"stdout of {what}")
        outputs.append((args, output, result.returncode, result.stderr.decode(errors="replace")))
    # -e: an error reply makes the exit code non-zero; without it the code is 0.
    by_args = {" ".join(args): (code, stderr) for args, _, code, stderr in outputs}
    h.check_equal(by_args["-e SET bad v EX 0"],
                  (1, "ERR invalid expire time in 'set' command\n"), "-e with an error reply")
    h.check_equal(by_args["SET bad v EX 0"], (0, ""), "an error reply without -e")
    return outputs


def test_one_shot():
    redis_outputs, keel_outputs = h.on_redis_then_keel(one_shot)
    for redis_output, keel_output in zip(redis_outputs, keel_outputs):
        h.check_equal(keel_output, redis_output, f"redis-cli {' '.join(redis_output[0])}")


SCAN_KEYS = [f"user:{i}" for i in range(40)] + [f"order:{i}" for i in range(15)] + ["other"]


def scan(server):
    with server.connect() as conn:
        for key in SCAN_KEYS:
            h.check_equal(conn.command("SET", key, "v"), "OK", f"SET {key}")
    every = h.redis_cli(server.port, ["--scan"]).stdout.decode().split()
    h.check_equal(sorted(every), sorted(SCAN_KEYS), "redis-cli --scan: every key, once")
    users = h.redis_cli(server.port, ["--scan", "--pattern", "user:*"])
    users = users.stdout.decode().split()
    h.check_equal(sorted(users), sorted(k for k in SCAN_KEYS if k.startswith("user:")),
                  "redis-cli --scan --pattern user:*")
    return sorted(every), sorted(users)


def test_scan():
    with h.start_server() as server:
        if not h.has_command(server, "scan"):
            h.skip("redis-cli --scan: keel-server has no SCAN yet (the keyspace issue); this "
                   "case runs once it does")
    redis_result, keel_result = h.on_redis_then_keel(scan)
    h.check_equal(keel_result, redis_result, "--scan results, keel vs redis")


EVAL_SCRIPT = "redis.call('SET', KEYS[1], ARGV[1])\nreturn redis.call('GET', KEYS[1])\n"


def run_eval(server):
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        script.write(EVAL_SCRIPT)
        script.flush()
        result = h.redis_cli(server.port, ["--eval", script.name, "greeting", ",", "hi"])
    h.check_equal(result.stdout.decode(), "hi\n", "redis-cli --eval output")
    return result.stdout


def test_eval():
    with h.start_server() as server:
        if not h.has_command(server, "eval"):
            h.skip("redis-cli --eval: keel-server has no EVAL yet (the scripting issue); this "
                   "case runs once it does")
    redis_result, keel_result = h.on_redis_then_keel(run_eval)
    h.check_equal(keel_result, redis_result, "--eval output, keel vs redis")


if __name__ == "__main__":
    sys.exit(h.main({"tty": test_tty, "one_shot": test_one_shot, "scan": test_scan,
                     "eval": test_eval}))
