# Protocol errors over a raw socket: keel-server answers malformed RESP or inline input with
# redis-server's "-ERR Protocol error: ..." reply, after the replies to the valid commands before
# it, then closes that connection; the server keeps serving other clients. An HTTP request (what
# a web page in a local browser can send to localhost) is closed at its "POST" or "Host:" line
# before anything in its body runs, as redis-server does.
import shutil
import socket
import sys

import keel_harness as h

# (bytes sent, the exact error reply), the texts being redis-server 7.0.15's.
MALFORMED = [
    (b"*abc\r\n", b"-ERR Protocol error: invalid multibulk length\r\n"),
    (b"*1\r\n$abc\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
    (b"*1\r\n$-5\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
    (b"*1\r\n$600000000\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
    (b"*1\r\nfoo\r\n", b"-ERR Protocol error: expected '$', got 'f'\r\n"),
    (b'SET "a\r\n', b"-ERR Protocol error: unbalanced quotes in request\r\n"),
    # One byte over the 64 KiB inline limit, so that the server has read everything when it
    # closes (unread input would turn its FIN into a RST that can discard the reply).
    (b"x" * (64 * 1024 + 1), b"-ERR Protocol error: too big inline request\r\n"),
]


def test_protocol_errors():
    with h.start_server() as server:
        for sent, error in MALFORMED:
            with server.connect() as conn:
                conn.send_raw(sent)
                h.check_equal(conn.read_until_closed(), error, f"reply to {sent[:40]!r}")
        # Valid commands pipelined before the malformed one are answered first.
        with server.connect() as conn:
            conn.send_raw(b"PING\r\n" + h.encode_command("SET", "k", "v") + b"*1\r\n$x\r\n")
            h.check_equal(conn.read_until_closed(),
                          b"+PONG\r\n+OK\r\n-ERR Protocol error: invalid bulk length\r\n",
                          "replies to PING, SET, then a malformed bulk length")
        with server.connect() as conn:
            h.check_equal(conn.command("GET", "k"), b"v", "GET from a new connection afterwards")
        stats = server.info("stats")
        h.check(int(stats["total_connections_received"]) >= len(MALFORMED) + 2,
                f"total_connections_received {stats['total_connections_received']}")


# The reproduction, exactly as a shell user types it.
HTTP_ATTACK_SHELL = (r"printf 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 30\r\n\r\n"
                     r"SET pwned 1\r\nCONFIG SET hz 77\r\n' | nc -q1 127.0.0.1 {port}")
SECURITY_LOG = ("Possible SECURITY ATTACK detected. It looks like somebody is sending POST or "
                "Host: commands to Redis. This is likely due to an attacker attempting to use "
                "Cross Protocol Scripting to compromise your Redis instance. Connection aborted.")


def check_cross_protocol(server):
    h.check(shutil.which("nc") is not None, "nc is not installed (bash .ci/deps installs it)")
    result = h.run_tool(["bash", "-c", HTTP_ATTACK_SHELL.format(port=server.port)])
    h.check_equal(result.stdout, b"", "what the HTTP request got back")
    h.check_equal(server.command("EXISTS", "pwned"), 0, "EXISTS pwned after the HTTP request")
    h.check_equal(server.command("CONFIG", "GET", "hz"), [b"hz", b"10"], "hz after it")
    # A "Host:" header line alone, after a command in the same write: nothing is answered, not
    # even the PING before it, and the connection is closed.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10.0) as sock:
        sock.sendall(b"PING\r\nHost: localhost:6379\r\nSET pwned 1\r\n")
        received = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    h.check_equal(received, b"", "replies to PING then a Host: line")
    h.check_equal(server.command("EXISTS", "pwned"), 0, "EXISTS pwned after the Host: line")
    h.check_equal(server.log().count(SECURITY_LOG), 1, "security warnings logged (once a minute)")


def test_cross_protocol_attack():
    h.on_redis_then_keel(check_cross_protocol)


if __name__ == "__main__":
    sys.exit(h.main({"protocol_errors": test_protocol_errors,
                     "cross_protocol_attack": test_cross_protocol_attack}))
