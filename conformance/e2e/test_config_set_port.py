# CONFIG SET port moves keel-server's listener while it runs: the new port answers PING, the old
# one refuses connections, and connected clients stay connected. A port that is taken fails with
# redis-server's error and leaves the old listener serving.
import socket
import sys

import keel_harness as h

BUSY_PORT_ERROR_PREFIX = ("ERR CONFIG SET failed (possibly related to argument 'port') - "
                          "Unable to listen on this port")


def busy_listener():
    """A socket listening on a free loopback port, so that keel-server cannot bind it."""
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    return holder


def test_moves_listener():
    with h.start_server() as server, server.connect() as conn:
        old_port = server.port
        for attempt in range(h.PORT_ATTEMPTS):  # the free port may be taken before the move
            new_port = h.free_port()
            reply = conn.command("CONFIG", "SET", "port", new_port)
            if not (isinstance(reply, h.RespError) and BUSY_PORT_ERROR_PREFIX in reply.text):
                break
        h.check_equal(reply, "OK", f"CONFIG SET port {new_port}")
        server.port = new_port
        with h.RespConnection(new_port) as moved:
            h.check_equal(moved.command("PING"), "PONG", f"PING on the new port {new_port}")
        h.check(h.port_refuses(old_port), f"the old port {old_port} still accepts connections")
        h.check_equal(conn.command("PING"), "PONG", "PING on the connection that moved the port")
        h.check_equal(conn.command("CONFIG", "GET", "port"), [b"port", str(new_port).encode()],
                      "CONFIG GET port")
        h.check_equal(server.info("server")["tcp_port"], str(new_port), "INFO server tcp_port")

        with busy_listener() as holder:
            busy_port = holder.getsockname()[1]
            reply = conn.command("CONFIG", "SET", "port", busy_port)
            h.check(isinstance(reply, h.RespError) and
                    reply.text.startswith(BUSY_PORT_ERROR_PREFIX),
                    f"CONFIG SET port {busy_port} (taken): {reply!r}")
        h.check_equal(conn.command("CONFIG", "GET", "port"), [b"port", str(new_port).encode()],
                      "CONFIG GET port after the failed move")
        with h.RespConnection(new_port) as still:
            h.check_equal(still.command("PING"), "PONG", "PING on the port kept after the failure")


def fail_to_move_to_busy_port(server):
    with server.connect() as conn, busy_listener() as holder:
        return conn.command("CONFIG", "SET", "port", holder.getsockname()[1])


def test_busy_port_error_text():
    with h.start_server() as server:
        reply = fail_to_move_to_busy_port(server)
        h.check_equal(reply, h.RespError(BUSY_PORT_ERROR_PREFIX + ". Check server logs."),
                      "CONFIG SET port to a taken port")


def test_busy_port_log():
    with h.start_server() as server:
        fail_to_move_to_busy_port(server)
        log = server.log()
        # One warning, no "aborting": the old listener keeps serving throughout.
        h.check_equal(log.count("Could not create server TCP listening socket"), 1,
                      f"'Could not create' lines in the log:\n{log}")
        h.check("aborting" not in log, f"the log says 'aborting' but the server runs:\n{log}")


if __name__ == "__main__":
    sys.exit(h.main({"moves_listener": test_moves_listener,
                     "busy_port_error_text": test_busy_port_error_text,
                     "busy_port_log": test_busy_port_log}))
