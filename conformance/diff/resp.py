"""RESP2/RESP3 replies for the differential runner: read exactly one reply from a socket, keep its
raw bytes, parse it into a tree and serialise a tree back to bytes.

The tree keeps every distinction the wire makes (a simple string is not a bulk string, a RESP2 null
bulk is not a RESP3 null, a double keeps its text), so serialise(parse(raw)) == raw for every reply
the parser accepts. Normalisers (normalise.py) edit trees; everything else compares raw bytes.
"""

import socket

CRLF = b"\r\n"

# Kinds whose payload is a line: simple string, error, integer, null, double, boolean, big number.
LINE_KINDS = b"+-:_,#("
# Kinds whose payload is a length-prefixed blob: bulk string, verbatim string, blob error.
BLOB_KINDS = b"$=!"
# Aggregates of single values: array, set, push. Map and attribute hold pairs.
LIST_KINDS = b"*~>"
PAIR_KINDS = b"%|"


class Value:
    """One reply. `kind` is the RESP type byte as a one-character str ('+', '$', '%', ...).

    data: bytes for line and blob kinds (None for RESP2 nulls "$-1" and "*-1"); a list of Values
    for '*', '~', '>'; a list of (key, value) pairs for '%' and '|'. An attribute ('|') also has
    `inner`, the value it annotates.
    """

    __slots__ = ("kind", "data", "inner")

    def __init__(self, kind, data, inner=None):
        self.kind = kind
        self.data = data
        self.inner = inner

    def __repr__(self):
        return "Value(%r, %r)" % (self.kind, self.data)


class Closed(Exception):
    """The server closed the connection (or reset it) before a whole reply arrived."""


class Timeout(Exception):
    """No whole reply arrived in time."""


class ProtocolError(Exception):
    """The bytes are not RESP."""


class Reader:
    """Buffered reads over a connected socket; consumed() returns the bytes parsed so far."""

    def __init__(self, sock):
        self._sock = sock
        self._buf = bytearray()
        self._pos = 0
        self._start = 0

    def has_buffered(self):
        """Whether bytes not parsed yet are buffered."""
        return self._pos < len(self._buf)

    def _fill(self):
        try:
            chunk = self._sock.recv(65536)
        except socket.timeout as error:
            raise Timeout() from error
        except OSError as error:  # ECONNRESET and friends: the peer is gone
            raise Closed() from error
        if not chunk:
            raise Closed()
        self._buf += chunk

    def line(self):
        while True:
            end = self._buf.find(CRLF, self._pos)
            if end >= 0:
                text = bytes(self._buf[self._pos:end])
                self._pos = end + 2
                return text
            self._fill()

    def exact(self, count):
        while len(self._buf) - self._pos < count + 2:
            self._fill()
        data = bytes(self._buf[self._pos:self._pos + count])
        if self._buf[self._pos + count:self._pos + count + 2] != CRLF:
            raise ProtocolError("blob not followed by CRLF")
        self._pos += count + 2
        return data

    def begin(self):
        self._start = self._pos

    def consumed(self):
        raw = bytes(self._buf[self._start:self._pos])
        del self._buf[:self._pos]
        self._pos = 0
        self._start = 0
        return raw


def _count(header):
    try:
        return int(header)
    except ValueError as error:
        raise ProtocolError("bad length %r" % header) from error


def _parse(reader):
    line = reader.line()
    if not line:
        raise ProtocolError("empty line")
    kind = chr(line[0])
    rest = line[1:]
    code = line[0]
    if code in LINE_KINDS:
        return Value(kind, rest)
    if code in BLOB_KINDS:
        length = _count(rest)
        if length < 0:
            return Value(kind, None)
        return Value(kind, reader.exact(length))
    if code in LIST_KINDS:
        length = _count(rest)
        if length < 0:
            return Value(kind, None)
        return Value(kind, [_parse(reader) for _ in range(length)])
    if code in PAIR_KINDS:
        pairs = [(_parse(reader), _parse(reader)) for _ in range(_count(rest))]
        if kind == "|":
            return Value(kind, pairs, _parse(reader))
        return Value(kind, pairs)
    raise ProtocolError("unknown type byte %r" % kind)


def read_reply(reader):
    """Returns (raw bytes, Value) of the next reply."""
    reader.begin()
    value = _parse(reader)
    return reader.consumed(), value


def serialise(value):
    kind = value.kind.encode()
    data = value.data
    code = kind[0]
    if code in LINE_KINDS:
        return kind + data + CRLF
    if code in BLOB_KINDS:
        if data is None:
            return kind + b"-1" + CRLF
        return kind + str(len(data)).encode() + CRLF + data + CRLF
    if code in LIST_KINDS:
        if data is None:
            return kind + b"-1" + CRLF
        return kind + str(len(data)).encode() + CRLF + b"".join(serialise(v) for v in data)
    if code in PAIR_KINDS:
        body = b"".join(serialise(k) + serialise(v) for k, v in data)
        tail = serialise(value.inner) if kind == b"|" else b""
        return kind + str(len(data)).encode() + CRLF + body + tail
    raise ProtocolError("cannot serialise kind %r" % value.kind)


def encode_command(args):
    """A RESP multibulk request for a list of bytes arguments."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        out.append(b"$%d\r\n" % len(arg))
        out.append(arg)
        out.append(CRLF)
    return b"".join(out)
