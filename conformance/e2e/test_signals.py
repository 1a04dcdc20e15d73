# Shutdown: SIGTERM, SIGINT and the SHUTDOWN command each make keel-server log "User requested
# shutdown..." and "... ready to exit, bye bye...", close connected clients and the listener, and
# exit with 0 (under ASan this also means no leak report). SIGTERM during DEBUG SLEEP ends the
# sleep and the server at once, as on redis-server.
import signal
import sys
import time

import keel_harness as h

READY_TO_EXIT = "Keel is now ready to exit, bye bye..."


def shut_down_with(sig):
    """Starts a server with a connected client and data, stops it with `sig` (a signal, or None
    for redis-cli SHUTDOWN NOSAVE); returns its log."""
    how = sig.name if sig is not None else "SHUTDOWN"
    with h.start_server(name=f"keel-server for {how}") as server:
        client = server.connect()
        try:
            h.check_equal(client.command("SET", "k", "v"), "OK", f"SET before {how}")
            if sig is None:
                result = h.redis_cli(server.port, ["SHUTDOWN", "NOSAVE"])
                h.check_equal((result.returncode, result.stdout, result.stderr), (0, b"", b""),
                              "redis-cli SHUTDOWN NOSAVE (exit code, stdout, stderr)")
            server.stop(sig, expect_exit_code=0)
            h.check_equal(client.read_until_closed(), b"",
                          "the connected client after shutdown (expected EOF)")
        finally:
            client.close()
        h.check(h.port_refuses(server.port), f"port {server.port} still open after the exit")
        log = server.log()
        h.check_contains(log, "User requested shutdown...", f"log after {how}")
        h.check_contains(log, READY_TO_EXIT, f"log after {how}")
        h.check(log.index("User requested shutdown...") < log.index(READY_TO_EXIT),
                f"log lines out of order:\n{log}")
        return log


def test_sigterm():
    log = shut_down_with(signal.SIGTERM)
    h.check_contains(log, "Received SIGTERM scheduling shutdown...", "log after SIGTERM")


def test_sigint():
    shut_down_with(signal.SIGINT)


def test_sigint_log_names_signal():
    log = shut_down_with(signal.SIGINT)
    # As redis-server: the log names the signal that was received.
    h.check_contains(log, "Received SIGINT scheduling shutdown...", "log after SIGINT")


def test_shutdown_command():
    log = shut_down_with(None)
    h.check("Received SIG" not in log, f"a signal is logged after SHUTDOWN:\n{log}")


def test_shutdown_command_logs_once():
    log = shut_down_with(None)
    # As redis-server: one "User requested shutdown..." line.
    h.check_equal(log.count("User requested shutdown..."), 1,
                  f"'User requested shutdown...' lines after SHUTDOWN; log:\n{log}")


SLEEP_S = 30


def check_sigterm_during_debug_sleep(binary, name, extra_args):
    server = h.KeelServer(lambda port: ["--port", str(port), "--enable-debug-command", "yes"] +
                          extra_args, name=name, binary=binary)
    try:
        server.start()
        with server.connect() as sleeper:
            sleeper.send_raw(h.encode_command("DEBUG", "SLEEP", str(SLEEP_S)))
            time.sleep(0.5)  # the sleep has begun (a sleeping server cannot be asked)
            started = time.monotonic()
            server.stop(signal.SIGTERM, expect_exit_code=0)
            elapsed_s = time.monotonic() - started
        # Generous: ASan and a loaded machine; the point is "not after the sleep's 30 s".
        h.check(elapsed_s < SLEEP_S / 3, f"{name} took {elapsed_s:.1f} s to exit after SIGTERM "
                f"during DEBUG SLEEP {SLEEP_S}")
        h.check_contains(server.log(), "Received SIGTERM scheduling shutdown...", f"{name}'s log")
    finally:
        server.cleanup()


def test_sigterm_during_debug_sleep():
    check_sigterm_during_debug_sleep(h.tool("redis-server"), "redis-server", ["--save", ""])
    check_sigterm_during_debug_sleep(h.server_binary(), "keel-server", [])


if __name__ == "__main__":
    sys.exit(h.main({"sigterm": test_sigterm, "sigint": test_sigint,
                     "sigint_log_names_signal": test_sigint_log_names_signal,
                     "shutdown_command": test_shutdown_command,
                     "shutdown_command_logs_once": test_shutdown_command_logs_once,
                     "sigterm_during_debug_sleep": test_sigterm_during_debug_sleep}))
