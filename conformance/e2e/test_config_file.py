# keel-server's configuration sources, as redis-server reads them: a config file with comments,
# blank lines, CRLF, double and single quoting with escapes, a quoted and an upper-case directive
# name and an "include" (applied where it appears); options on the command line override the file;
# "-" reads more configuration from standard input, applied after the file and before the options.
# Every value is checked with CONFIG GET.
import os
import sys

import keel_harness as h

INCLUDED = "maxmemory 2mb\nhz 30\nloglevel verbose\n"

MAIN = """# Keel end-to-end test configuration.
   # An indented comment, then a blank line:

port {port}
maxmemory 1mb
include {directory}/included.conf
hz 20
dbfilename "my \\"dump\\".rdb"
appendfilename 'single quoted\\'s.aof'
"maxmemory-policy" allkeys-lru
MAXMEMORY-SAMPLES 7
timeout 7\r
save "3600 1 300 100"
"""


def config_get(conn, name):
    reply = conn.command("CONFIG", "GET", name)
    h.check(isinstance(reply, list) and len(reply) == 2, f"CONFIG GET {name}: {reply!r}")
    return reply[1].decode()


def check_config(server, expected):
    with server.connect() as conn:
        for name, value in expected.items():
            h.check_equal(config_get(conn, name), value, f"CONFIG GET {name}")


def config_file_server(extra_args=(), stdin_text=None):
    """A server started as `keel-server main.conf EXTRA...`, the relative path naming a file in
    its working directory (written for each port it tries)."""
    server = h.KeelServer(stdin_text=stdin_text, name="keel-server with a config file")

    def make_args(port):
        with open(os.path.join(server.tempdir, "included.conf"), "w") as included:
            included.write(INCLUDED)
        with open(os.path.join(server.tempdir, "main.conf"), "w", newline="") as main:
            main.write(MAIN.format(port=port, directory=server.tempdir))
        return ["main.conf"] + list(extra_args)

    server.make_args = make_args
    try:
        return server.start()
    except BaseException:
        server.cleanup()
        raise


def test_config_file():
    with config_file_server(["--maxmemory-policy", "allkeys-random"]) as server:
        check_config(server, {
            "port": str(server.port),
            "maxmemory": "2097152",  # the include comes after "maxmemory 1mb"
            "hz": "20",  # "hz 20" comes after the include
            "loglevel": "verbose",  # only in the included file
            "dbfilename": 'my "dump".rdb',
            "appendfilename": "single quoted's.aof",
            "maxmemory-policy": "allkeys-random",  # the command line comes last
            "maxmemory-samples": "7",
            "timeout": "7",
            "save": "3600 1 300 100",
        })
        config_file = server.info("server")["config_file"]
        h.check_equal(config_file, os.path.join(os.path.realpath(server.tempdir), "main.conf"),
                      "INFO server config_file (made absolute)")
        h.check_contains(server.log(), "Configuration loaded", "log")


def test_stdin():
    stdin_text = lambda port: f"# from standard input\nport {port}\nmaxmemory 5mb\nhz 11\n"
    with h.start_server(lambda port: ["-"], stdin_text=stdin_text) as server:
        check_config(server, {"port": str(server.port), "maxmemory": "5242880", "hz": "11"})


def test_file_stdin_and_options():
    stdin_text = "maxmemory 4mb\nhz 12\n"
    with config_file_server(["--hz", "15", "-"], stdin_text=stdin_text) as server:
        check_config(server, {
            "maxmemory": "4194304",  # standard input comes after the file
            "hz": "15",  # options come after standard input
            "maxmemory-samples": "7",  # the file still applies
        })


if __name__ == "__main__":
    sys.exit(h.main({"file": test_config_file, "stdin": test_stdin,
                     "file_stdin_and_options": test_file_stdin_and_options}))
