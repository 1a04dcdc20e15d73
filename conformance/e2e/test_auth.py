# Authentication state over real connections, on redis-server and then keel-server with the same
# checks: a client that never authenticated is free as soon as another client clears
# requirepass (commands and the larger protocol limits, but not HELLO), and bound again when a
# password is set again.
import sys

import keel_harness as h


def check_requirepass_cleared(server):
    with server.connect() as admin, server.connect() as waiting:
        h.check_equal(admin.command("CONFIG", "SET", "requirepass", "secret"), "OK",
                      "setting a password")
        # An existing client was authenticated when it connected (there was no password then).
        h.check_equal(admin.command("PING"), "PONG", "PING from the client that set it")
    with server.connect() as admin, server.connect() as waiting:
        h.check_equal(waiting.command("SET", "k", "v"),
                      h.RespError("NOAUTH Authentication required."), "SET before any AUTH")
        h.check_equal(admin.command("AUTH", "secret"), "OK", "AUTH")
        h.check_equal(admin.command("CONFIG", "SET", "requirepass", ""), "OK", "clearing it")
        h.check_equal(waiting.command("SET", "k", "v"), "OK", "SET once the password is gone")
        # The pre-authentication limits (16 KiB bulks, 10 arguments) no longer apply either.
        big = b"x" * 20000
        h.check_equal(waiting.command("ECHO", big), big, "a 20000-byte bulk")
        h.check_equal(waiting.command("DEL", *[f"k{i}" for i in range(20)]), 0,
                      "a command of 21 arguments")
        # Redis 7.0's HELLO alone still looks at the client's own flag (not authRequired).
        h.check_equal(waiting.command("HELLO", "2"), h.RespError(
            "NOAUTH HELLO must be called with the client already authenticated, otherwise the "
            "HELLO AUTH <user> <pass> option can be used to authenticate the client and select "
            "the RESP protocol version at the same time"), "HELLO once the password is gone")
        # A password set again binds the client that never authenticated.
        h.check_equal(admin.command("CONFIG", "SET", "requirepass", "other"), "OK",
                      "a new password")
        h.check_equal(waiting.command("GET", "k"),
                      h.RespError("NOAUTH Authentication required."), "GET after a new password")


def test_requirepass_cleared():
    h.on_redis_then_keel(check_requirepass_cleared)


if __name__ == "__main__":
    sys.exit(h.main({"requirepass_cleared": test_requirepass_cleared}))
