# keel-server's PID file and daemon mode, as redis-server's: --pidfile holds the server's pid while
# it runs and is removed when it exits; a server that fails to start (busy port) leaves none; with
# --daemonize yes the command returns 0 at once and the detached server logs to --logfile, writes
# its pid and stops on SIGTERM.
import os
import signal
import sys
import tempfile
import time

import keel_harness as h

DAEMON_TIMEOUT_S = 20.0


def test_pidfile():
    with tempfile.TemporaryDirectory(prefix="keel-e2e-") as directory:
        pidfile = os.path.join(directory, "keel.pid")
        make_args = lambda port: ["--port", str(port), "--pidfile", pidfile]
        with h.start_server(make_args) as server:
            with open(pidfile) as file:
                h.check_equal(file.read(), f"{server.process.pid}\n", "PID file content")

            second = h.KeelServer(make_args, name="keel-server on a busy port")
            os.unlink(pidfile)
            try:
                try:
                    second.start_on(server.port)
                except h.ServerStartError:
                    pass
                h.check_equal(second.exit_code, 1, f"exit code on a busy port:\n{second.log()}")
                h.check(not os.path.exists(pidfile),
                        "a server that failed to start (busy port) left a PID file")
            finally:
                second.cleanup()
            with open(pidfile, "w") as file:  # the running server's file, restored
                file.write(f"{server.process.pid}\n")
        h.check(not os.path.exists(pidfile), "the PID file is still there after SIGTERM")


def process_gone(pid):
    """True once `pid` has exited (a zombie waiting for a reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_until(condition, what, timeout_s=DAEMON_TIMEOUT_S):
    deadline = time.monotonic() + timeout_s
    while not condition():
        h.check(time.monotonic() < deadline, f"timed out after {timeout_s}s waiting for {what}")
        time.sleep(0.02)


def read_pid(pidfile):
    try:
        with open(pidfile) as file:
            text = file.read()
    except FileNotFoundError:
        return None
    return int(text) if text.endswith("\n") else None


def test_daemonize():
    with tempfile.TemporaryDirectory(prefix="keel-e2e-") as directory:
        pidfile = os.path.join(directory, "keel.pid")
        logfile = os.path.join(directory, "keel.log")
        port = h.free_port()
        # The daemon's standard error is /dev/null: sanitizer reports go to files instead.
        report_prefix = os.path.join(directory, "sanitizer")
        environment = dict(os.environ)
        for variable in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
            options = [environment[variable]] if environment.get(variable) else []
            environment[variable] = ":".join(options + [f"log_path={report_prefix}"])
        result = h.run_tool([h.server_binary(), "--port", str(port), "--daemonize", "yes",
                             "--pidfile", pidfile, "--logfile", logfile], timeout_s=30.0,
                            environment=environment)
        h.check_equal(result.returncode, 0, f"exit code of the daemonizing command: {result}")
        h.check_equal(result.stdout + result.stderr, b"", "output of the daemonizing command")
        pid = None
        try:
            wait_until(lambda: read_pid(pidfile) is not None, "the daemon's PID file")
            pid = read_pid(pidfile)
            with h.RespConnection(port) as conn:
                h.check_equal(conn.command("PING"), "PONG", "PING to the daemon")
                info = h.parse_info(conn.command("INFO", "server"))
                h.check_equal(info["process_id"], str(pid), "the daemon's pid vs its PID file")
            os.kill(pid, signal.SIGTERM)
            wait_until(lambda: process_gone(pid), f"daemon {pid} to exit after SIGTERM")
            pid = None
            wait_until(lambda: not os.path.exists(pidfile), "the PID file's removal")
            with open(logfile) as file:
                log = file.read()
            h.check_contains(log, "Keel is now ready to exit, bye bye...", "the daemon's log file")
            reports = [name for name in os.listdir(directory) if name.startswith("sanitizer")]
            h.check_equal(reports, [], "sanitizer report files of the daemon")
        finally:
            if pid is not None and not process_gone(pid):
                os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    sys.exit(h.main({"pidfile": test_pidfile, "daemonize": test_daemonize}))
