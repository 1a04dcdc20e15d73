# Starting and stopping the servers under test. Each server is pinned to a core with taskset,
# declared ready only when it answers PING, and stopped with SIGTERM and waited for; its
# resource usage comes from wait4 when it exits.
import ctypes
import os
import signal
import socket
import subprocess
import threading
import time

import resp

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _die_with_harness():
    """Runs in the child before exec: if the harness dies, even by SIGKILL, the kernel kills the
    server or client too, so no server is ever left running."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


READY_TIMEOUT_S = 120.0  # a server under valgrind on a busy machine starts in seconds
STOP_TIMEOUT_S = 120.0  # callgrind writes its profile at exit


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Engine:
    """One server implementation: its name in results, its binary, its version line."""

    def __init__(self, name, binary, extra_args=()):
        self.name = name
        self.binary = binary
        self.extra_args = list(extra_args)  # after the common settings (--keel-args)

    def version(self):
        result = subprocess.run([self.binary, "--version"], capture_output=True, text=True,
                                timeout=30)
        return result.stdout.strip()


def server_args(port, workdir, maxmemory):
    """The same settings for both engines: no persistence, the same memory limit and number of
    databases, loopback only, a log file. Everything else is each engine's default."""
    return ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--maxmemory", maxmemory, "--maxmemory-policy", "noeviction", "--databases", "16",
            "--daemonize", "no", "--dir", workdir, "--logfile", os.path.join(workdir, "server.log")]


class Server:
    def __init__(self, engine, core, workdir, maxmemory, wrapper=(), log=None):
        self.engine = engine
        self.port = free_port()
        self.workdir = workdir
        os.makedirs(workdir, exist_ok=True)
        self.argv = (["taskset", "-c", str(core)] + list(wrapper) + [engine.binary] +
                     server_args(self.port, workdir, maxmemory) + engine.extra_args)
        if log:
            log(self.argv)
        self.output = open(os.path.join(workdir, "server.out"), "wb")
        self.process = subprocess.Popen(self.argv, stdout=self.output, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL,
                                        preexec_fn=_die_with_harness)
        self.rusage = None
        self.exit_code = None
        self._wait_ready()

    @property
    def pid(self):
        return self.process.pid

    def _wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.engine.name} exited at start (code "
                                   f"{self.process.returncode}); see {self.workdir}")
            try:
                with resp.RespClient(self.port, timeout_s=5.0) as client:
                    if client.command("PING") == b"PONG":
                        return
            except (OSError, resp.RespError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.engine.name} did not answer PING within "
                                   f"{READY_TIMEOUT_S:.0f} s")
            time.sleep(0.05)

    def client(self):
        return resp.RespClient(self.port)

    def command(self, *args):
        with self.client() as client:
            return client.command(*args)

    def info(self, section="all"):
        return resp.parse_info(self.command("INFO", section))

    def stop(self):
        """SIGTERM, then wait for the exit (SIGKILL after STOP_TIMEOUT_S, which is an error)."""
        if self.exit_code is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        killed = threading.Event()

        def kill():
            killed.set()
            self.process.kill()

        timer = threading.Timer(STOP_TIMEOUT_S, kill)
        timer.daemon = True
        timer.start()
        _, status, rusage = os.wait4(self.process.pid, 0)
        timer.cancel()
        self.process.returncode = os.waitstatus_to_exitcode(status)
        self.exit_code = self.process.returncode
        self.rusage = {"utime_s": rusage.ru_utime, "stime_s": rusage.ru_stime,
                       "maxrss_kb": rusage.ru_maxrss}
        self.output.close()
        if killed.is_set():
            raise RuntimeError(f"{self.engine.name} did not exit within {STOP_TIMEOUT_S:.0f} s "
                               "of SIGTERM and was killed")


def run_pinned(argv, core, stdout_path, stderr_path, timeout_s, log=None):
    """Runs a client program pinned to `core`, waits for it and returns
    (exit code, wall seconds, {"utime_s", "stime_s"} of the program)."""
    full = ["taskset", "-c", str(core)] + argv
    if log:
        log(full)
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        start = time.monotonic()
        process = subprocess.Popen(full, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                   preexec_fn=_die_with_harness)
        # A blocking wait (no polling on the client's core); a timer kills a program that hangs.
        timer = threading.Timer(timeout_s, process.kill)
        timer.daemon = True
        timer.start()
        try:
            _, status, rusage = os.wait4(process.pid, 0)
        except BaseException:  # interrupted: end the client and reap it before unwinding
            process.kill()
            os.wait4(process.pid, 0)
            raise
        finally:
            timer.cancel()
        wall_s = time.monotonic() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if wall_s >= timeout_s:
        raise RuntimeError(f"{argv[0]} ran longer than {timeout_s:.0f} s and was killed")
    return process.returncode, wall_s, {"utime_s": rusage.ru_utime, "stime_s": rusage.ru_stime}
