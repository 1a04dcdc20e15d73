# Starting and stopping server processes for every black-box test of conformance/: keel-server or
# redis-server on a free loopback port, ready once it answers PING and INFO names its own process
# id (so a stranger on the same port is never mistaken for it), stopped with SIGTERM and a bounded
# wait. The differential runners (diff/), the end-to-end harness (e2e/keel_harness.py) and the
# compatibility table (compat/) all start servers through this module. Python 3 standard library.
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

READY_TIMEOUT_S = 30.0  # ASan start-up on a loaded 2-core machine
STOP_TIMEOUT_S = 20.0  # SIGTERM to exit
PORT_ATTEMPTS = 5  # a free port can be taken by someone else before the server binds it
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")
# Options that keep a test server from touching the disk: no RDB snapshots, no AOF.
NO_PERSISTENCE = ["--save", "", "--appendonly", "no"]
# KEEL_IO_BACKEND=epoll|io_uring: every keel-server started here gets "--io-backend <it>", so
# that the same tests run against either network backend (ctest's e2e.epoll.* and e2e.io_uring.*
# entries set it). Unset: the server's default (io_uring where the kernel allows it).
IO_BACKEND = os.environ.get("KEEL_IO_BACKEND", "")

_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    """Runs in the child before exec: if the test process itself is killed (a ctest timeout), the
    kernel kills the server too instead of leaving it running."""
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def free_port():
    """A loopback port that was free a moment ago (bound to port 0, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def with_io_backend(binary, args):
    """`args` (the arguments after `binary`) with KEEL_IO_BACKEND's option when `binary` is a
    keel-server: after the config file (or the "-" that reads it from stdin) when there is one,
    since options follow it, else first."""
    if not IO_BACKEND or not os.path.basename(binary).startswith("keel-server"):
        return args
    option = ["--io-backend", IO_BACKEND]
    if args and (args[0] == "-" or not args[0].startswith("-")):
        return args[:1] + option + args[1:]
    return option + args


class StartError(Exception):
    """The server exited during start-up, or did not become ready in time."""

    def __init__(self, message, port_in_use=False):
        super().__init__(message)
        self.port_in_use = port_in_use


class StopTimeout(Exception):
    """The server did not exit within STOP_TIMEOUT_S of the signal; it was killed (SIGKILL)."""


def _command(sock, *args):
    """Sends one command and returns its reply's first line and, for a bulk reply, the bulk."""
    request = b"*%d\r\n" % len(args) + b"".join(
        b"$%d\r\n%s\r\n" % (len(arg), arg) for arg in args)
    sock.sendall(request)
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionResetError("closed")
        data += chunk
    line, rest = data.split(b"\r\n", 1)
    if not line.startswith(b"$") or line == b"$-1":
        return line, None
    length = int(line[1:])
    while len(rest) < length + 2:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionResetError("closed")
        rest += chunk
    return line, rest[:length]


def answers_as(port, pid):
    """True when the server on `port` answers PING and INFO server names process `pid`."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5.0) as sock:
            if _command(sock, b"PING")[0] != b"+PONG":
                return False
            _, info = _command(sock, b"INFO", b"server")
            return info is not None and b"\r\nprocess_id:%d\r\n" % pid in info
    except (OSError, ValueError):
        return False


class ServerProcess:
    """One server process on a loopback port, with its log file in its working directory.

    binary: the program (keel-server, redis-server). make_args(port): the arguments after it
    (default: --port P plus NO_PERSISTENCE). stdin_text: text (or a function of the port) written
    to the server's standard input, for "-" config arguments; without it stdin is /dev/null.
    workdir: the server's working directory; by default a new temporary directory, removed by
    cleanup(). Two servers compared with each other share one, so CONFIG GET dir agrees.
    """

    def __init__(self, binary, make_args=None, stdin_text=None, name=None, workdir=None):
        self.binary = binary
        self.make_args = make_args or (lambda port: ["--port", str(port)] + NO_PERSISTENCE)
        self.stdin_text = stdin_text
        self.name = name or os.path.basename(binary)
        self.owns_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="keel-test-")
        self.log_path = os.path.join(self.workdir, self.name.replace(" ", "-") + ".log")
        self.process = None
        self.port = None
        self.argv = None
        self.exit_code = None
        self.attempt_log_offset = 0
        self.final_log = None  # kept after cleanup() removed the working directory
        self.before_exec = None  # a function run in the child before exec (after the death signal)

    def start(self):
        """Starts on a free port, retrying when another process takes the port first. Raises
        StartError."""
        for attempt in range(PORT_ATTEMPTS):
            try:
                return self.start_on(free_port())
            except StartError as error:
                if not error.port_in_use or attempt == PORT_ATTEMPTS - 1:
                    raise
        return self

    def start_on(self, port):
        """Starts on `port` and waits until it is ready. Raises StartError if it exits first (with
        port_in_use set when its log says the address was taken) or is not ready in time."""
        self.port = port
        self.argv = [self.binary] + with_io_backend(self.binary, list(self.make_args(port)))
        self.exit_code = None
        with open(self.log_path, "ab") as log:
            self.attempt_log_offset = log.tell()  # the log keeps every attempt's lines
            self.process = subprocess.Popen(
                self.argv, cwd=self.workdir, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=self._prepare_child,
                stdin=subprocess.PIPE if self.stdin_text is not None else subprocess.DEVNULL)
        if self.stdin_text is not None:
            text = self.stdin_text(port) if callable(self.stdin_text) else self.stdin_text
            self.process.stdin.write(text.encode())
            self.process.stdin.close()
        self._wait_ready()
        return self

    def _prepare_child(self):
        _die_with_parent()
        if self.before_exec is not None:
            self.before_exec()

    def _wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            code = self.process.poll()
            if code is not None:
                self.exit_code = code
                self.process = None
                log = self.log()
                in_use = "Address already in use" in log[self.attempt_log_offset:]
                raise StartError(f"{self.name} exited with {code} during start-up "
                                 f"({' '.join(self.argv)}); log:\n{log}", in_use)
            if answers_as(self.port, self.process.pid):
                return
            time.sleep(0.02)  # a poll interval, not a wait for readiness
        try:
            self.stop()
        except StopTimeout:
            pass
        raise StartError(f"{self.name} was not ready within {READY_TIMEOUT_S}s; log:\n"
                         f"{self.log()}")

    def running(self):
        return self.process is not None and self.process.poll() is None

    def stop(self, sig=signal.SIGTERM):
        """Sends `sig` (None: none, the server is expected to exit by itself) and waits for the
        exit; returns the exit status (None if it was not started). Raises StopTimeout when it
        had to be killed."""
        if self.process is None:
            return self.exit_code
        process = self.process
        if process.poll() is None and sig is not None:
            process.send_signal(sig)
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            self.exit_code = process.returncode
            self.process = None
            cause = signal.Signals(sig).name if sig is not None else "being told to"
            raise StopTimeout(f"{self.name} did not exit within {STOP_TIMEOUT_S}s of {cause}; "
                              f"killed with SIGKILL") from None
        self.exit_code = process.returncode
        self.process = None
        return self.exit_code

    def log(self):
        if self.final_log is not None:
            return self.final_log
        try:
            with open(self.log_path, "rb") as log:
                return log.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines=40):
        return "\n".join(self.log().splitlines()[-lines:])

    def sanitizer_report(self):
        """The log when a sanitizer reported in it, else None."""
        log = self.log()
        return log if any(marker in log for marker in SANITIZER_MARKERS) else None

    def cleanup(self, keep_workdir=False):
        """Stops the server if it still runs (SIGKILL after the bounded wait) and removes the
        working directory it owns, keeping its log text in final_log."""
        if self.process is not None:
            try:
                self.stop()
            except StopTimeout:
                pass
        self.final_log = self.log()
        if self.owns_workdir and not keep_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)


def find_binary(name):
    """The path of a program on PATH, or None."""
    return shutil.which(name)
