# The network under stress, over raw sockets, for either backend (run with KEEL_IO_BACKEND=epoll
# or io_uring, as ctest's e2e.epoll.* and e2e.io_uring.* entries do): large values both ways, many
# clients at once, a client that pipelines far faster than it reads (the output buffer limit
# disconnects it), a client that resets in the middle of a large reply, CLIENT KILL of a blocked
# client and the idle timeout. After each, the server still answers everyone else.
import socket
import struct
import sys
import time

import keel_harness as h

BIG_BYTES = 20 * 1024 * 1024


def wait_until(predicate, what, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)  # a poll interval
    raise h.TestFailure(f"timed out waiting for {what}")


def connected_clients(server):
    """The clients connected besides the one that asks."""
    return int(server.info("clients")["connected_clients"]) - 1


def test_big_values():
    value = bytes(range(256)) * (BIG_BYTES // 256)
    with h.start_server() as server, server.connect() as conn:
        h.check_equal(conn.command("SET", "big", value), "OK", "SET of 20 MiB")
        # Three GETs pipelined: 60 MiB of replies, every byte in order.
        conn.send_raw(h.encode_command("GET", "big") * 3)
        for i in range(3):
            h.check(conn.read_reply() == value, f"GET {i + 1} of the 20 MiB value")
        h.check_equal(conn.command("STRLEN", "big"), BIG_BYTES, "STRLEN")


def test_many_clients():
    with h.start_server() as server:
        conns = [server.connect() for _ in range(300)]
        try:
            # Every client pipelines 20 commands before any reads; then all read.
            for i, conn in enumerate(conns):
                conn.send_raw(b"".join(h.encode_command("INCR", f"c{i % 7}") for _ in range(20)))
            for conn in conns:
                for _ in range(20):
                    h.check(isinstance(conn.read_reply(), int), "INCR reply")
            h.check_equal(connected_clients(server), 300, "connected_clients")
            total = sum(int(conns[0].command("GET", f"c{k}")) for k in range(7))
            h.check_equal(total, 300 * 20, "sum of the counters")
        finally:
            for conn in conns:
                conn.close()
        wait_until(lambda: connected_clients(server) == 0, "the 300 clients to be gone")


def test_output_limit_disconnects_a_client_that_does_not_read():
    with h.start_server() as server:
        server.command("CONFIG", "SET", "client-output-buffer-limit", "normal 4mb 2mb 1")
        server.command("SET", "v", b"x" * 100_000)
        slow = socket.create_connection(("127.0.0.1", server.port), timeout=10.0)
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
        # 4,000 GETs of 100 kB (400 MB of replies) sent without reading one: the server must cut
        # the client off at its limit, not buffer the replies.
        request = h.encode_command("GET", "v") * 100
        closed = False
        try:
            for _ in range(40):
                slow.sendall(request)
        except (ConnectionResetError, BrokenPipeError):
            closed = True
        with server.connect() as other:
            h.check_equal(other.command("PING"), "PONG", "another client during the flood")
        wait_until(lambda: connected_clients(server) == 0, "the flooding client to be closed")
        h.check("overcoming of output buffer limits" in server.log(),
                f"the log names the output buffer limit (closed by send: {closed})")
        slow.close()
        h.check_equal(server.command("GET", "v"), b"x" * 100_000, "GET afterwards")


def test_reset_in_the_middle_of_a_large_reply():
    with h.start_server() as server:
        server.command("SET", "big", b"y" * BIG_BYTES)
        for _ in range(3):
            peer = socket.create_connection(("127.0.0.1", server.port), timeout=10.0)
            peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
            peer.sendall(h.encode_command("GET", "big") * 4)
            received = 0
            while received < 1_000_000:
                received += len(peer.recv(65536))
            # SO_LINGER with a zero timeout: close sends RST, with 79 MB still unsent.
            peer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            peer.close()
        wait_until(lambda: connected_clients(server) == 0, "the reset clients to be closed")
        h.check_equal(server.command("STRLEN", "big"), BIG_BYTES, "STRLEN afterwards")


def test_client_kill_of_a_blocked_client_and_idle_timeout():
    with h.start_server() as server:
        blocked = server.connect()
        blocked.send_raw(h.encode_command("CLIENT", "SETNAME", "waiter") +
                         h.encode_command("BLPOP", "nothing", "0"))
        h.check_equal(blocked.read_reply(), "OK", "CLIENT SETNAME")
        wait_until(lambda: int(server.info("clients")["blocked_clients"]) == 1, "BLPOP to block")
        with server.connect() as admin:
            h.check_equal(admin.command("CLIENT", "KILL", "USER", "default", "SKIPME", "yes"), 1,
                          "CLIENT KILL")
        h.check_equal(blocked.read_until_closed(), b"", "what the killed client reads")
        blocked.close()
        server.command("CONFIG", "SET", "timeout", "1")
        idle = server.connect()
        started = time.monotonic()
        h.check_equal(idle.read_until_closed(), b"", "what the idle client reads")
        idle.close()
        elapsed = time.monotonic() - started
        h.check(0.9 <= elapsed < 8.0, f"the idle client was closed after {elapsed:.1f}s")
        with server.connect() as other:
            h.check_equal(other.command("PING"), "PONG", "PING afterwards")


if __name__ == "__main__":
    sys.exit(h.main({
        "big_values": test_big_values,
        "many_clients": test_many_clients,
        "output_limit": test_output_limit_disconnects_a_client_that_does_not_read,
        "reset_mid_reply": test_reset_in_the_middle_of_a_large_reply,
        "client_kill_and_timeout": test_client_kill_of_a_blocked_client_and_idle_timeout,
    }))
