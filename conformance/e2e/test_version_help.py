# keel-server's informational options: -v/--version print one line on standard output and exit 0,
# and the version matches INFO server's keel_version; -h/--help print the usage on standard error.
import re
import sys

import keel_harness as h

VERSION_LINE = re.compile(r"Keel server v=(\d+\.\d+\.\d+) \(Redis 7\.0\.15 compatible\) bits=64\n")
USAGE_FIRST_LINES = ("Usage: ./keel-server [/path/to/keel.conf] [options] [-]\n"
                     "       ./keel-server - (read config from stdin)\n"
                     "       ./keel-server -v or --version\n"
                     "       ./keel-server -h or --help\n")


def run(option):
    return h.run_tool([h.server_binary(), option], timeout_s=30.0)


def test_version():
    versions = set()
    for option in ("--version", "-v"):
        result = run(option)
        output = result.stdout.decode()
        h.check_equal(result.returncode, 0, f"exit code of keel-server {option}")
        h.check_equal(result.stderr, b"", f"stderr of keel-server {option}")
        match = VERSION_LINE.fullmatch(output)
        h.check(match is not None, f"keel-server {option} printed {output!r}")
        versions.add(match.group(1))
    h.check_equal(len(versions), 1, "versions printed by --version and -v")
    with h.start_server() as server:
        h.check_equal(server.info("server")["keel_version"], versions.pop(),
                      "INFO server keel_version vs --version")


def test_help():
    for option in ("--help", "-h"):
        result = run(option)
        usage = result.stderr.decode()
        # As redis-server --help: usage on standard error and exit code 1.
        h.check_equal(result.returncode, 1, f"exit code of keel-server {option}")
        h.check_equal(result.stdout, b"", f"stdout of keel-server {option}")
        h.check(usage.startswith(USAGE_FIRST_LINES), f"keel-server {option} printed {usage!r}")
        h.check_contains(usage, "./keel-server --port 7777", f"usage of keel-server {option}")


if __name__ == "__main__":
    sys.exit(h.main({"version": test_version, "help": test_help}))
