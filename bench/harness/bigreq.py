# The client of the big-request cells (docs/BENCHMARKING.md): one very large command, timed from
# its first byte sent to its reply, while a second connection sends a PING every few
# milliseconds and times each answer (how long other clients wait while the big command is read
# and run). Prints one JSON line. Standard library only.
#
#   bigreq.py --port P --kind mset --bytes 100000000   one MSET of ~100 MB of small pairs
#   bigreq.py --port P --kind del --bytes 100000000    one DEL of every key that MSET wrote
#   bigreq.py --port P --kind set --bytes 536870912    one SET of a value of that many bytes
#   (--prepare runs the command untimed, without the PING connection: the data of a DEL cell)
import argparse
import json
import socket
import sys
import threading
import time

KEY_FORMAT = b"key:%012d"  # 16 bytes, as keel_loadgen's and redis-benchmark's -r keys
VALUE_BYTES = 16
PING_INTERVAL_S = 0.005


def bulk(data):
    return b"$%d\r\n%s\r\n" % (len(data), data)


def pair_count(total_bytes):
    """MSET pairs of a 16-byte key and a 16-byte value that make about `total_bytes`."""
    pair = len(bulk(KEY_FORMAT % 0)) + len(bulk(b"v" * VALUE_BYTES))
    return max(1, total_bytes // pair)


def build_request(kind, total_bytes):
    """(request bytes, the reply expected, keys it leaves)."""
    if kind == "set":
        return (b"*3\r\n" + bulk(b"SET") + bulk(b"big") + bulk(b"x" * total_bytes), b"+OK\r\n", 1)
    pairs = pair_count(total_bytes)
    if kind == "mset":
        value = bulk(b"v" * VALUE_BYTES)
        parts = [b"*%d\r\n" % (1 + 2 * pairs), bulk(b"MSET")]
        parts += [bulk(KEY_FORMAT % i) + value for i in range(pairs)]
        return b"".join(parts), b"+OK\r\n", pairs
    parts = [b"*%d\r\n" % (1 + pairs), bulk(b"DEL")]
    parts += [bulk(KEY_FORMAT % i) for i in range(pairs)]
    return b"".join(parts), b":%d\r\n" % pairs, 0


def read_reply_line(sock):
    data = b""
    while not data.endswith(b"\r\n"):
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"server closed the connection after {data!r}")
        data += chunk
    return data


class Pinger(threading.Thread):
    """PING every PING_INTERVAL_S on its own connection until stopped; keeps each latency."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=600)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.stopping = threading.Event()
        self.latencies_ms = []
        self.errors = 0

    def run(self):
        while not self.stopping.is_set():
            start = time.monotonic()
            self.sock.sendall(b"PING\r\n")
            if read_reply_line(self.sock) != b"+PONG\r\n":
                self.errors += 1
            self.latencies_ms.append((time.monotonic() - start) * 1000)
            self.stopping.wait(PING_INTERVAL_S)


def percentile(values, share):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--kind", choices=("mset", "del", "set"), required=True)
    parser.add_argument("--bytes", type=int, required=True)
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args(argv)
    request, expected, keys = build_request(args.kind, args.bytes)
    sock = socket.create_connection(("127.0.0.1", args.port), timeout=1800)
    pinger = None
    if not args.prepare:
        pinger = Pinger(args.port)
        pinger.start()
        time.sleep(0.05)  # a few PINGs before: the baseline latency
    start = time.monotonic()
    sock.sendall(request)
    reply = read_reply_line(sock)
    request_s = time.monotonic() - start
    if pinger is not None:
        time.sleep(0.05)
        pinger.stopping.set()
        pinger.join()
    result = {"kind": args.kind, "request_bytes": len(request), "request_s": request_s,
              "reply": reply.decode(errors="replace").strip(), "reply_ok": reply == expected,
              "keys_after": keys}
    if pinger is not None:
        pings = pinger.latencies_ms
        result.update({"pings": len(pings), "ping_errors": pinger.errors,
                       "p50_ms": percentile(pings, 0.50), "p99_ms": percentile(pings, 0.99),
                       "max_ms": max(pings) if pings else None})
    print(json.dumps(result))
    return 0 if reply == expected else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
