# Protocol errors over a raw socket: keel-server answers malformed RESP or inline input with
# redis-server's "-ERR Protocol error: ..." reply, after the replies to the valid commands before
# it, then closes that connection; the server keeps serving other clients.
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


if __name__ == "__main__":
    sys.exit(h.main({"protocol_errors": test_protocol_errors}))
