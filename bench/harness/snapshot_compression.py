#!/usr/bin/env python3
"""Keel's zstd snapshot against Redis's LZF file (issue 16 item 7): file size, SAVE's CPU and the
load's CPU and time on a restart, for one dataset saved as `rdb-compression-algorithm lzf` and as
`zstd` at each of --levels. Standalone: standard library only, talks RESP itself, reads CPU
times from /proc/<pid>/stat (utime + stime of the server process).

    python3 bench/harness/snapshot_compression.py --keys 1000000 --levels 1,3 --reps 3

The dataset: --keys keys with a fixed seed, of mixed types and compressibility: 60% strings
(a third random bytes, a third English-like text, a third repetitive records; 8 to 1000
bytes), 10% each hashes, sets, sorted sets and lists of 4 to 40 elements. Each form is saved
--reps times (medians reported); after each SAVE the server is restarted on the file and timed
until PING answers, and DEBUG DIGEST must equal the dataset's. Besides, when the `zstd` CLI is
installed, the plain RDB (rdbcompression no) and the LZF one (yes) are each compressed with
`zstd -<level>`, to show what LZF inside the stream does to zstd (Keel's zstd file has none).
Run it on a quiet machine: the CPU figures are the server's own, but a busy machine slows it.
"""
import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
WORDS = ("the of and to in is was for on that with as by at from his her they which this "
         "be are or had an not but what all were when we there can one your said more").split()


def encode(*args):
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class Connection:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.buffer = b""

    def _line(self):
        while b"\r\n" not in self.buffer:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _exact(self, size):
        while len(self.buffer) < size + 2:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:size], self.buffer[size + 2:]
        return data

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b":"):
            return rest
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b"$":
            size = int(rest)
            return None if size < 0 else self._exact(size)
        if kind == b"*":
            return [self.reply() for _ in range(int(rest))]
        raise RuntimeError("unexpected reply %r" % line)

    def command(self, *args):
        self.sock.sendall(encode(*args))
        return self.reply()

    def pipeline(self, commands):
        self.sock.sendall(b"".join(commands))
        for _ in commands:
            self.reply()

    def close(self):
        self.sock.close()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


def value(rng, size):
    kind = rng.randrange(3)
    if kind == 0:
        return rng.randbytes(size)
    if kind == 1:
        text = " ".join(rng.choice(WORDS) for _ in range(size // 3 + 1))
        return text[:size].encode()
    record = "id=%d;user=user%05d;status=active;plan=basic;" % (rng.randrange(10**6),
                                                               rng.randrange(5000))
    return (record * (size // len(record) + 1))[:size].encode()


def dataset_commands(keys, seed):
    """The fill, as RESP commands, in batches."""
    rng = random.Random(seed)
    batch = []
    for i in range(keys):
        draw = rng.random()
        elements = rng.randrange(4, 41)
        if draw < 0.6:
            size = int(8 * (125 ** rng.random()))  # 8 to 1000 bytes, log-uniform
            batch.append(encode("SET", "string:%d" % i, value(rng, size)))
        elif draw < 0.7:
            fields = []
            for f in range(elements):
                fields += ["field%d" % f, value(rng, rng.randrange(4, 60))]
            batch.append(encode("HSET", "hash:%d" % i, *fields))
        elif draw < 0.8:
            batch.append(encode("SADD", "set:%d" % i,
                                *[value(rng, rng.randrange(4, 40)) for _ in range(elements)]))
        elif draw < 0.9:
            members = []
            for m in range(elements):
                members += [rng.randrange(10**6) / 100, "member:%d:%d" % (m, rng.randrange(1000))]
            batch.append(encode("ZADD", "zset:%d" % i, *members))
        else:
            batch.append(encode("RPUSH", "list:%d" % i,
                                *[value(rng, rng.randrange(4, 80)) for _ in range(elements)]))
        if len(batch) == 1000:
            yield batch
            batch = []
    if batch:
        yield batch


class Server:
    def __init__(self, binary, directory):
        self.binary = binary
        self.directory = directory
        self.process = None
        self.port = None

    def start(self):
        """Starts the server on the directory's dump.rdb; returns (wall s, CPU s) until PING."""
        self.port = free_port()
        started = time.monotonic()
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--save", "", "--dir", self.directory,
             "--dbfilename", "dump.rdb", "--enable-debug-command", "yes", "--appendonly", "no",
             "--logfile", os.path.join(self.directory, "server.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while True:
            if self.process.poll() is not None:
                sys.exit("the server exited; see %s/server.log" % self.directory)
            try:
                connection = Connection(self.port)
                if connection.command("PING") == b"PONG":
                    break
            except (ConnectionError, OSError, RuntimeError):
                time.sleep(0.005)
                continue
        wall_s = time.monotonic() - started
        self.connection = connection
        return wall_s, cpu_seconds(self.process.pid)

    def stop(self):
        try:
            self.connection.sock.sendall(encode("SHUTDOWN", "NOSAVE"))
        except OSError:
            pass
        self.process.wait(timeout=120)

    def save(self):
        """SAVE; returns (wall s, server CPU s, file bytes)."""
        cpu_before = cpu_seconds(self.process.pid)
        started = time.monotonic()
        self.connection.command("SAVE")
        wall_s = time.monotonic() - started
        cpu_s = cpu_seconds(self.process.pid) - cpu_before
        return wall_s, cpu_s, os.path.getsize(os.path.join(self.directory, "dump.rdb"))


def zstd_cli_sizes(path, levels):
    if shutil.which("zstd") is None:
        return {}
    sizes = {}
    for level in levels:
        out = subprocess.run(["zstd", "-q", "-%d" % level, "-c", path], check=True,
                             stdout=subprocess.PIPE).stdout
        sizes[level] = len(out)
    return sizes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", default="build/release/io/keel-server")
    parser.add_argument("--keys", type=int, default=1000000)
    parser.add_argument("--levels", default="1,3")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    levels = [int(level) for level in args.levels.split(",")]
    directory = tempfile.mkdtemp(prefix="keel-snapshot-compression-")
    server = Server(os.path.abspath(args.server), directory)
    server.start()
    for batch in dataset_commands(args.keys, args.seed):
        server.connection.pipeline(batch)
    digest = server.connection.command("DEBUG", "DIGEST")
    info = server.connection.command("INFO", "memory").decode()
    used = int(info.split("used_memory:")[1].split()[0])
    print("dataset: %d keys, used_memory %.1f MB, digest %s" % (args.keys, used / 1e6,
                                                                 digest.decode()))
    forms = [("lzf", None)] + [("zstd", level) for level in levels]
    rows = []
    for name, level in forms:
        readings = []
        for _ in range(args.reps):
            server.connection.command("CONFIG", "SET", "rdb-compression-algorithm", name)
            if level is not None:
                server.connection.command("CONFIG", "SET", "rdb-zstd-level", str(level))
            save_wall, save_cpu, size = server.save()
            server.stop()
            load_wall, load_cpu = server.start()
            loaded = server.connection.command("DEBUG", "DIGEST")
            if loaded != digest:
                sys.exit("%s: the restart loaded digest %s, not %s" % (name, loaded, digest))
            readings.append((size, save_cpu, save_wall, load_cpu, load_wall))
        medians = [statistics.median(reading[i] for reading in readings) for i in range(5)]
        label = "LZF (Redis's RDB)" if level is None else "zstd level %d" % level
        rows.append((label, *medians))
    # What LZF inside the stream does to zstd: the same dataset, plain and LZF'd, through zstd.
    server.connection.command("CONFIG", "SET", "rdb-compression-algorithm", "lzf")
    lzf_path = os.path.join(directory, "lzf.rdb")
    server.save()
    os.replace(os.path.join(directory, "dump.rdb"), lzf_path)
    server.connection.command("CONFIG", "SET", "rdbcompression", "no")
    _, _, plain_size = server.save()
    plain_path = os.path.join(directory, "dump.rdb")
    with_lzf = zstd_cli_sizes(lzf_path, levels)
    without_lzf = zstd_cli_sizes(plain_path, levels)
    server.stop()
    print()
    print("| form | file MB | SAVE CPU s | SAVE wall s | load CPU s | load wall s |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, size, save_cpu, save_wall, load_cpu, load_wall in rows:
        print("| %s | %.1f | %.2f | %.2f | %.2f | %.2f |" % (label, size / 1e6, save_cpu,
                                                             save_wall, load_cpu, load_wall))
    print()
    print("plain RDB (rdbcompression no): %.1f MB" % (plain_size / 1e6))
    for level in levels:
        if level in with_lzf:
            print("zstd CLI -%d over the plain RDB: %.1f MB; over the LZF RDB: %.1f MB" %
                  (level, without_lzf[level] / 1e6, with_lzf[level] / 1e6))
    shutil.rmtree(directory)


if __name__ == "__main__":
    main()
