"""Subscribers for the pub/sub cells (docs/BENCHMARKING.md): N connections SUBSCRIBEd to one
channel, reading every message until the end marker arrives on each. Standard library only.

  subscribers.py --port P --channel C --connections N --out counts.json

Prints "ready" on stdout once every connection's subscription is confirmed, then counts the
messages each connection receives on the channel (RESP2 "message" pushes, found by their fixed
header, so that a burst of millions costs the client little) until a message arrives on the end
channel (C + ":end"), which the harness publishes after the load. Writes {"counts": [...]}
(messages before that, per connection) and exits 0; exits 1 when a connection closes or stalls.
"""
import argparse
import json
import selectors
import socket
import sys
import time

END_SUFFIX = b":end"  # the end channel: the measured channel's name and this
STALL_TIMEOUT_S = 120.0
READ_BYTES = 1 << 18


def _bulk(data):
    return b"$%d\r\n%s\r\n" % (len(data), data)


def subscribe_command(channel):
    return b"*3\r\n" + _bulk(b"SUBSCRIBE") + _bulk(channel) + _bulk(channel + END_SUFFIX)


def message_header(channel):
    """The bytes that open every message published on `channel` (RESP2)."""
    return b"*3\r\n" + _bulk(b"message") + _bulk(channel)


class Counter:
    """Counts the messages of one channel in a byte stream read in chunks, where a message's
    header may straddle two chunks, until the end channel's first message."""

    def __init__(self, channel):
        self.header = message_header(channel)
        # Neither header is a prefix of the other (the channel names' lengths differ), so a
        # header found in the stream is one or the other, never both.
        self.end = message_header(channel + END_SUFFIX)
        self.tail = b""
        self.count = 0
        self.ended = False

    def feed(self, chunk):
        data = self.tail + chunk
        end_at = data.find(self.end)
        self.count += data.count(self.header, 0, end_at if end_at >= 0 else len(data))
        if end_at >= 0:
            self.ended = True
            return
        # Keep what could be the start of a header, but nothing of one already counted.
        last = data.rfind(self.header)
        counted_to = last + len(self.header) if last >= 0 else 0
        self.tail = data[max(counted_to, len(data) - (len(self.end) - 1)):]


def run(port, channel, connections, out_path):
    confirm = (b"*3\r\n" + _bulk(b"subscribe") + _bulk(channel) + b":1\r\n" +
               b"*3\r\n" + _bulk(b"subscribe") + _bulk(channel + END_SUFFIX) + b":2\r\n")
    selector = selectors.DefaultSelector()
    counters = []
    for _ in range(connections):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(subscribe_command(channel))
        got = b""
        while len(got) < len(confirm):
            piece = sock.recv(len(confirm) - len(got))
            if not piece:
                sys.exit("subscribers: the server closed a connection while subscribing")
            got += piece
        if got != confirm:
            sys.exit(f"subscribers: unexpected reply to SUBSCRIBE: {got!r}")
        sock.setblocking(False)
        counter = Counter(channel)
        counters.append(counter)
        selector.register(sock, selectors.EVENT_READ, counter)
    print("ready", flush=True)
    open_left = connections
    last_read = time.monotonic()
    while open_left:
        events = selector.select(timeout=1.0)
        if not events and time.monotonic() - last_read > STALL_TIMEOUT_S:
            sys.exit(f"subscribers: no message for {STALL_TIMEOUT_S:.0f} s")
        for key, _ in events:
            chunk = key.fileobj.recv(READ_BYTES)
            if not chunk:
                sys.exit("subscribers: the server closed a subscriber's connection")
            last_read = time.monotonic()
            key.data.feed(chunk)
            if key.data.ended:
                selector.unregister(key.fileobj)
                key.fileobj.close()
                open_left -= 1
    with open(out_path, "w") as out:
        json.dump({"counts": [c.count for c in counters]}, out)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--channel", required=True)
    parser.add_argument("--connections", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    run(args.port, args.channel.encode(), args.connections, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
