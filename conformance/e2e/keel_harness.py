# The harness for Keel's end-to-end tests: starts the real keel-server binary on a free loopback
# port, waits until it answers PING, talks RESP to it over a raw socket, runs redis-cli and
# redis-benchmark against it, and always stops it (SIGTERM, then a bounded wait; SIGKILL only after
# that wait, and then the test fails). Starting and stopping processes is
# conformance/lib/servers.py, shared with the differential runners; this adds assertions, a small
# RESP2 client and `main`.
#
# Each test script defines its cases and ends with `keel_harness.main(CASES)`. ctest runs
#   python3 -B test_x.py --server /path/to/keel-server [--case NAME]
# Exit status: 0 pass, 1 fail, 77 skipped (a known bug, see `known_bug`, or a feature Keel does not
# have yet, see `skip`). On failure the logs of every server the case started are printed.
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import servers  # noqa: E402

PORT_ATTEMPTS = servers.PORT_ATTEMPTS
SKIP_EXIT_CODE = 77  # ctest SKIP_RETURN_CODE

_servers_started = []  # every server of the running case, for failure reports
_server_binary = None


class TestFailure(AssertionError):
    pass


class KnownBug(Exception):
    """Raised by `known_bug` when a check for a documented bug fails as expected."""


class Skipped(Exception):
    """Raised by `skip`: the case needs what Keel (or the client under test) does not have yet."""


def skip(reason):
    raise Skipped(reason)


def server_binary():
    return _server_binary


# ----------------------------------------------------------------------------------------------
# Assertions


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def check_equal(actual, expected, what):
    if actual != expected:
        raise TestFailure(f"{what}:\n  expected {expected!r}\n  actual   {actual!r}")


def check_contains(text, fragment, what):
    if fragment not in text:
        raise TestFailure(f"{what}: expected to contain {fragment!r}, got:\n{text}")


class known_bug:
    """Wraps checks that fail because of a known keel-server bug.

    A failing check skips the ctest test (exit 77) with the bug's description. A passing check
    fails the test, so that the marker is removed once the bug is fixed and the test guards the fix.
    """

    def __init__(self, description):
        self.description = description

    def __enter__(self):
        return self

    def __exit__(self, kind, value, trace):
        if kind is None:
            raise TestFailure(f"known bug no longer reproduces, remove its known_bug marker: "
                              f"{self.description}")
        if issubclass(kind, TestFailure):
            raise KnownBug(f"{self.description}\n  check failed as expected: {value}")
        return False


# ----------------------------------------------------------------------------------------------
# Ports and a minimal RESP2 client


free_port = servers.free_port


class RespError(Exception):
    """An error reply ("-ERR ..."), returned (not raised) by RespConnection.command."""

    def __init__(self, text):
        super().__init__(text)
        self.text = text

    def __eq__(self, other):
        return isinstance(other, RespError) and other.text == self.text

    def __repr__(self):
        return f"RespError({self.text!r})"


class RespConnection:
    """A blocking RESP2 connection. Replies: str (status), bytes (bulk), int, list, None, RespError.
    """

    def __init__(self, port, timeout_s=10.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout_s)
        self.buffer = b""

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send_raw(self, data):
        self.sock.sendall(data)

    def command(self, *args):
        self.send_raw(encode_command(*args))
        return self.read_reply()

    def read_until_closed(self):
        """Reads until the server closes the connection (fails if it does not within the
        connection's timeout); returns what arrived, unparsed bytes included."""
        data = self.buffer
        self.buffer = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                return data
            except socket.timeout:
                raise TestFailure(f"the server did not close the connection; received {data!r}")
            if not chunk:
                return data
            data += chunk

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise TestFailure(f"server closed the connection; unparsed bytes {self.buffer!r}")
        self.buffer += chunk

    def _line(self):
        while b"\r\n" not in self.buffer:
            self._fill()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def read_reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RespError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            length = int(rest)
            if length < 0:
                return None
            while len(self.buffer) < length + 2:
                self._fill()
            value, self.buffer = self.buffer[:length], self.buffer[length + 2:]
            return value
        if kind == b"*":
            count = int(rest)
            return None if count < 0 else [self.read_reply() for _ in range(count)]
        raise TestFailure(f"unexpected reply line {line!r}")


def encode_command(*args):
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def parse_info(text):
    """INFO's "field:value" lines as a dict of strings."""
    if isinstance(text, bytes):
        text = text.decode()
    fields = {}
    for line in text.splitlines():
        if line and not line.startswith("#") and ":" in line:
            name, value = line.split(":", 1)
            fields[name] = value
    return fields


def port_refuses(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2.0):
            return False
    except ConnectionRefusedError:
        return True


# ----------------------------------------------------------------------------------------------
# The server


ServerStartError = servers.StartError


class KeelServer(servers.ServerProcess):
    """A keel-server process with its own temporary directory (its cwd) and log file.

    `make_args(port)` returns the command line after the binary (default: ["--port", port]).
    `stdin_text` (a string, or a function of the port) is written to the server's standard input
    (for "-"); without it standard input is /dev/null. Use as a context manager:
    the server is stopped (and its temporary files removed) however the block ends.
    Starting and stopping are servers.ServerProcess's; this adds the test's failure semantics.
    """

    def __init__(self, make_args=None, stdin_text=None, name="keel-server", binary=None):
        super().__init__(binary or server_binary(),
                         make_args or (lambda port: ["--port", str(port)]), stdin_text, name)
        self.tempdir = self.workdir
        _servers_started.append(self)

    # Starting ------------------------------------------------------------------------------

    def start(self):
        """Starts on a free port, retrying when another process takes the port first."""
        try:
            return super().start()
        except ServerStartError as error:
            raise TestFailure(str(error)) from None

    # Talking -------------------------------------------------------------------------------

    def connect(self):
        return RespConnection(self.port)

    def command(self, *args):
        with self.connect() as conn:
            return conn.command(*args)

    def info(self, section):
        return parse_info(self.command("INFO", section))

    # Stopping ------------------------------------------------------------------------------

    def stop(self, sig=signal.SIGTERM, expect_exit_code=0):
        """Sends `sig` (None: none, the server is expected to exit by itself), waits for the exit;
        fails if it takes too long (then SIGKILL) or if the exit code differs from
        `expect_exit_code` (None: any) or a sanitizer reported."""
        if self.process is None:
            return self.exit_code
        try:
            super().stop(sig)
        except servers.StopTimeout as error:
            raise TestFailure(f"{error}; log:\n{self.log()}") from None
        log = self.log()
        check(self.sanitizer_report() is None, f"{self.name}: sanitizer report in its log:\n{log}")
        if expect_exit_code is not None:
            check(self.exit_code == expect_exit_code,
                  f"{self.name} exited with {self.exit_code}, expected {expect_exit_code}; "
                  f"log:\n{log}")
        return self.exit_code

    def cleanup(self):
        if self.process is not None:
            try:
                self.stop(expect_exit_code=None)
            except TestFailure as error:
                print(f"cleanup: {error}", file=sys.stderr)
        super().cleanup()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, trace):
        if kind is None:
            try:
                self.stop()  # a clean exit is part of every test
            finally:
                self.cleanup()
        else:
            self.cleanup()
        return False


def start_server(make_args=None, stdin_text=None, name="keel-server"):
    server = KeelServer(make_args, stdin_text, name)
    try:
        return server.start()
    except BaseException:
        server.cleanup()
        raise


def start_redis():
    """Debian's redis-server (the reference) on a free port, without persistence, with the same
    failure semantics as a KeelServer. Fails when it is not installed."""
    server = KeelServer(lambda port: ["--port", str(port)] + servers.NO_PERSISTENCE,
                        name="redis-server", binary=tool("redis-server"))
    try:
        return server.start()
    except BaseException:
        server.cleanup()
        raise


def on_redis_then_keel(function):
    """Runs function(server) against Debian's redis-server, then against keel-server, each started
    fresh. The checks inside run on both, so every expectation is confirmed on the reference
    server in every run (a wrong expectation fails on redis-server, not on Keel). Returns the two
    results, (redis's, keel's)."""
    results = []
    for start in (start_redis, start_server):
        with start() as server:
            try:
                results.append(function(server))
            except TestFailure as failure:
                raise TestFailure(f"on {server.name}: {failure}") from None
    return tuple(results)


def has_command(server, name):
    """True when `server` implements `name` ("scan", "client|kill"), by COMMAND INFO."""
    return server.command("COMMAND", "INFO", name) != [None]


# ----------------------------------------------------------------------------------------------
# Clients


def tool(name):
    path = shutil.which(name)
    check(path is not None, f"{name} is not installed (bash .ci/deps installs it)")
    return path


def run_tool(argv, input_bytes=None, timeout_s=60.0, environment=None):
    """Runs a program to completion; fails the test if it hangs."""
    try:
        return subprocess.run(argv, input=input_bytes, capture_output=True, timeout=timeout_s,
                              env=environment)
    except subprocess.TimeoutExpired as error:
        raise TestFailure(f"{' '.join(argv)} did not finish within {timeout_s}s; output so far:\n"
                          f"{error.stdout!r}") from None


def redis_cli(port, args=(), input_bytes=None, timeout_s=60.0):
    return run_tool([tool("redis-cli"), "-p", str(port)] + list(args), input_bytes, timeout_s)


# ----------------------------------------------------------------------------------------------
# Running a test script


def main(cases):
    """Runs the case named by --case (or the only one) against --server."""
    global _server_binary
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True, help="path to the keel-server binary")
    parser.add_argument("--case", choices=sorted(cases), help="which case to run")
    options = parser.parse_args()
    if options.case is None and len(cases) != 1:
        parser.error("--case is required: " + ", ".join(sorted(cases)))
    name = options.case or next(iter(cases))
    _server_binary = os.path.abspath(options.server)
    if not os.access(_server_binary, os.X_OK):
        print(f"FAIL: keel-server binary not found: {_server_binary}")
        return 1
    started = time.monotonic()
    try:
        _check_io_backend()
        cases[name]()
    except KnownBug as bug:
        print(f"SKIPPED (known bug): {bug}")
        return SKIP_EXIT_CODE
    except Skipped as reason:
        print(f"SKIPPED: {reason}")
        return SKIP_EXIT_CODE
    except TestFailure as failure:
        print(f"FAIL {name}: {failure}")
        _report_servers()
        return 1
    except Exception:
        print(f"ERROR {name}:\n{traceback.format_exc()}")
        _report_servers()
        return 1
    finally:
        for server in _servers_started:
            server.cleanup()
    print(f"PASS {name} ({time.monotonic() - started:.2f}s)")
    return 0


def _check_io_backend():
    """With KEEL_IO_BACKEND=io_uring, skips the case where keel-server cannot use io_uring (it
    falls back to epoll there, saying why in its log): the case would test epoll twice."""
    if servers.IO_BACKEND != "io_uring":
        return
    with start_server(name="keel-server probe") as probe:
        api = probe.info("server")["multiplexing_api"]
        fallback = [line for line in probe.log().splitlines() if "io_uring is not" in line]
    if api != "io_uring":
        skip(f"io_uring is not available here ({api} instead): {' '.join(fallback)}")


def _report_servers():
    for server in _servers_started:
        log = server.final_log if server.final_log is not None else server.log()
        tail = "\n".join(log.splitlines()[-40:])
        print(f"--- {server.name} ({' '.join(server.argv or [])}), exit code {server.exit_code}, "
              f"last log lines:\n{tail}\n---")

