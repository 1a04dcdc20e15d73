# Start-up failures of keel-server, which redis-server reports the same way: a busy port (a second
# server on a taken port exits 1 saying "Could not create server TCP listening socket" and "Failed
# listening on port", and the first keeps serving), and bad options on the command line or in a
# config file (exit 1 with the "*** FATAL CONFIG FILE ERROR" report naming the line), and a server
# that would listen nowhere (exit 1, "Configured to not listen anywhere, exiting."). Under a low
# descriptor limit, maxclients is lowered to fit at start, with Redis's log lines.
import os
import sys
import tempfile

import keel_harness as h

START_TIMEOUT_S = 30.0


def fatal_report(line_number, line, message):
    return (f"\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            f"Reading the configuration file, at line {line_number}\n"
            f">>> '{line}'\n"
            f"{message}\n")


def test_busy_port():
    with h.start_server(name="first keel-server") as first:
        second = h.KeelServer(lambda port: ["--port", str(port)], name="second keel-server")
        try:
            try:
                second.start_on(first.port)
            except h.ServerStartError:
                pass
            else:
                raise h.TestFailure(f"a second keel-server started on busy port {first.port}")
            log = second.log()
            h.check_equal(second.exit_code, 1, f"exit code of the second server; log:\n{log}")
            h.check_contains(log, "Could not create server TCP listening socket "
                             f"127.0.0.1:{first.port}: bind: Address already in use",
                             "second server's log")
            h.check_contains(log, f"Failed listening on port {first.port}", "second server's log")
        finally:
            second.cleanup()
        h.check_equal(first.command("PING"), "PONG", "the first server after the failed start")


def run_failing_start(args):
    """Runs keel-server expecting it to exit at once; returns the CompletedProcess."""
    return h.run_tool([h.server_binary()] + args, timeout_s=START_TIMEOUT_S)


def check_fatal_config_error(args, expected_stderr):
    result = run_failing_start(args)
    what = f"keel-server {' '.join(args)}"
    h.check_equal(result.returncode, 1, f"exit code of {what}")
    h.check_equal(result.stderr.decode(errors="replace"), expected_stderr, f"stderr of {what}")
    h.check_equal(result.stdout, b"", f"stdout of {what}")


def test_bad_options():
    port = str(h.free_port())
    check_fatal_config_error(["--port", "abc"], fatal_report(
        2, 'port "abc"', "argument couldn't be parsed into an integer"))
    check_fatal_config_error(["--nosuch", "1"], fatal_report(
        2, 'nosuch "1"', "Bad directive or wrong number of arguments"))
    # Each option is one line after a first empty line, as in redis-server.
    check_fatal_config_error(["--port", port, "--nosuch", "1"], fatal_report(
        3, 'nosuch "1"', "Bad directive or wrong number of arguments"))
    check_fatal_config_error(["--port", "70000"], fatal_report(
        2, 'port "70000"', "argument must be between 0 and 65535 inclusive"))
    with tempfile.TemporaryDirectory(prefix="keel-e2e-") as directory:
        config_path = os.path.join(directory, "bad.conf")
        with open(config_path, "w") as config:
            config.write(f"port {port}\n# a comment\n\nmaxmemory lots\nhz 10\n")
        check_fatal_config_error([config_path], fatal_report(
            4, "maxmemory lots", "argument must be a memory value"))
        # A missing config file, given by a relative path, is named by its absolute path.
        missing = os.path.join(os.path.realpath(directory), "missing.conf")
        result = run_failing_start([os.path.relpath(missing)])
        h.check_equal(result.returncode, 1, "exit code with a missing config file")
        h.check_contains(result.stdout.decode() + result.stderr.decode(),
                         f"Fatal error, can't open config file '{missing}': No such file or "
                         "directory", "output with a missing config file")


def test_include_missing_file():
    with tempfile.TemporaryDirectory(prefix="keel-e2e-") as directory:
        missing = os.path.join(directory, "missing.conf")
        result = run_failing_start(["--port", str(h.free_port()), "--include", missing])
        output = result.stdout.decode() + result.stderr.decode()
        h.check_equal(result.returncode, 1, f"exit code with a missing include: {output}")
        # As redis-server: the reason, and no FATAL CONFIG FILE ERROR report.
        h.check_contains(output, f"Fatal error, can't open config file '{missing}': No such "
                         "file or directory", "output with a missing include")
        h.check("FATAL CONFIG FILE ERROR" not in output, f"report of a missing include:\n"
                f"{output}")


NOWHERE = "Configured to not listen anywhere, exiting."
UNAVAILABLE = "10.99.99.99"  # an address this machine does not have (TEST-NET-like, unassigned)


def check_listen_failure(binary, args, expected, what):
    """Runs `binary args` (which must exit at once) and checks its exit code 1 and its output."""
    result = h.run_tool([binary] + args, timeout_s=START_TIMEOUT_S)
    output = result.stdout.decode(errors="replace") + result.stderr.decode(errors="replace")
    h.check_equal(result.returncode, 1, f"exit code of {what} {' '.join(args)}; output:\n{output}")
    for fragment in expected:
        h.check_contains(output, fragment, f"output of {what} {' '.join(args)}")


def test_listen_nowhere():
    port = str(h.free_port())
    unavailable = (f"Warning: Could not create server TCP listening socket {UNAVAILABLE}:{port}: "
                   "bind: Cannot assign requested address")
    cases = [
        (["--port", "0"], [NOWHERE]),
        (["--port", port, "--bind", f"-{UNAVAILABLE}"], [unavailable, NOWHERE]),
        (["--port", port, "--bind", ""], [NOWHERE]),
        (["--port", port, "--bind", UNAVAILABLE],
         [unavailable, f"Failed listening on port {port} (TCP), aborting."]),
    ]
    with tempfile.TemporaryDirectory(prefix="keel-e2e-") as directory:
        config_path = os.path.join(directory, "bind-nothing.conf")
        with open(config_path, "w") as config:
            config.write(f"port {port}\nbind\n")
        cases.append(([config_path], [NOWHERE]))
        # Every expectation holds for redis-server first.
        for binary, what in ((h.tool("redis-server"), "redis-server"),
                             (h.server_binary(), "keel-server")):
            for args, expected in cases:
                extra = ["--save", ""] if what == "redis-server" and args[0] != config_path else []
                check_listen_failure(binary, args + extra, expected, what)


DESCRIPTORS = 1024  # as `ulimit -n 1024`, soft and hard, so that no server can raise it


def check_descriptor_limit(server):
    """A server started under a descriptor limit that its maxclients (10000) does not fit."""
    log = server.log()
    h.check_contains(log, "You requested maxclients of 10000 requiring at least 10032 max file "
                     "descriptors.", f"{server.name}'s log")
    h.check_contains(log, "Current maximum open files is 1024. maxclients has been reduced to 992 "
                     "to compensate for low ulimit. If you need higher maxclients increase "
                     "'ulimit -n'.", f"{server.name}'s log")
    h.check_equal(server.command("CONFIG", "GET", "maxclients"), [b"maxclients", b"992"],
                  "CONFIG GET maxclients")
    # Every client up to maxclients is served; the next one is refused with a reply, not left
    # without one by a server out of descriptors.
    clients = []
    try:
        for _ in range(992):
            clients.append(server.connect())
        h.check_equal(clients[-1].command("PING"), "PONG", "the 992nd client")
        with server.connect() as extra:
            h.check_equal(extra.read_until_closed(), b"-ERR max number of clients reached\r\n",
                          "the 993rd client")
    finally:
        for client in clients:
            client.close()
    # (2000 rather than the 100000000: Redis takes seconds to try every limit from
    # there down to 1024, 16 at a time, and answers the same.)
    h.check_equal(server.command("CONFIG", "SET", "maxclients", "2000"), h.RespError(
        "ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating "
        "system is not able to handle the specified number of clients, try with 992"),
        f"CONFIG SET maxclients 2000 on {server.name}")


def test_descriptor_limit():
    # `prlimit` sets the limit of the server it runs (exec: the process id stays the server's).
    prlimit = h.tool("prlimit")
    for binary, name, extra in ((h.tool("redis-server"), "redis-server", ["--save", ""]),
                                (h.server_binary(), "keel-server", [])):
        server = h.KeelServer(lambda port, b=binary, e=extra: [
            f"--nofile={DESCRIPTORS}:{DESCRIPTORS}", b, "--port", str(port)] + e,
            name=name, binary=prlimit)
        try:
            server.start()
            check_descriptor_limit(server)
            server.stop()
        finally:
            server.cleanup()


if __name__ == "__main__":
    sys.exit(h.main({"busy_port": test_busy_port, "bad_options": test_bad_options,
                     "include_missing_file": test_include_missing_file,
                     "listen_nowhere": test_listen_nowhere,
                     "descriptor_limit": test_descriptor_limit}))
