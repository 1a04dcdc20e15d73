# A minimal blocking RESP2 client for the benchmark harness: readiness (PING), INFO, COMMAND INFO,
# DBSIZE and small preparation commands. Standard library only.
import socket


class RespError(Exception):
    pass


class RespClient:
    def __init__(self, port, host="127.0.0.1", timeout_s=30.0):
        self.sock = socket.create_connection((host, port), timeout=timeout_s)
        self.buffer = b""

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def command(self, *args):
        """Sends one command, returns its reply (bytes, int, list, None); an error reply raises."""
        parts = [b"*%d\r\n" % len(args)]
        for arg in args:
            data = arg if isinstance(arg, bytes) else str(arg).encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
        self.sock.sendall(b"".join(parts))
        reply = self._read_reply()
        if isinstance(reply, RespError):
            raise reply
        return reply

    def _read_line(self):
        while b"\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _read_exact(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _read_reply(self):
        line = self._read_line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest
        if kind == b"-":
            return RespError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            length = int(rest)
            if length < 0:
                return None
            return self._read_exact(length + 2)[:-2]
        if kind == b"*":
            count = int(rest)
            if count < 0:
                return None
            return [self._read_reply() for _ in range(count)]
        raise ConnectionError(f"unexpected reply line {line!r}")


def parse_info(text):
    """INFO text -> {field: value string}."""
    fields = {}
    for line in text.decode(errors="replace").splitlines():
        if line and not line.startswith("#") and ":" in line:
            name, value = line.split(":", 1)
            fields[name] = value
    return fields
