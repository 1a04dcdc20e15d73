"""Case files: one command per line in redis-cli quoting; '#' lines are comments naming the block
of commands that follows them.

Quoting follows redis-cli (sdssplitargs): words split on whitespace; "double quotes" take the
escapes \\n \\r \\t \\b \\a \\xHH and \\<any> for that character; 'single quotes' take \\' only; a
closing quote must end the word. In arguments, {client_id} becomes the id of the connection the
runner uses on each server (CLIENT LIST ID, CLIENT KILL ID).

A line may start with "@N " (N from 1 to 9) to send its command on the runner's N-th connection
to each server (opened when first used; the default is @1), for what takes two clients: WATCH
broken by another client's write, a transaction that others cannot interleave.

A command that blocks (BLPOP on an empty list) is sent with "@N& command": the runner sends it
and waits until each server shows the connection blocked (or its reply has arrived), without
reading a reply. "@N<" alone reads connection N's next reply and compares it (the blocked
command's, once another connection served it or its timeout passed).
"""

_ESCAPES = {"n": b"\n", "r": b"\r", "t": b"\t", "b": b"\b", "a": b"\a"}
_HEX = "0123456789abcdefABCDEF"


class CaseError(Exception):
    pass


def split_args(line):
    """Splits one line into a list of bytes arguments, as redis-cli does. Raises CaseError."""
    args = []
    i = 0
    n = len(line)
    while True:
        while i < n and line[i].isspace():
            i += 1
        if i >= n:
            return args
        current = bytearray()
        in_double = in_single = False
        while True:
            if in_double:
                if i >= n:
                    raise CaseError("unbalanced double quotes")
                c = line[i]
                if (c == "\\" and i + 3 < n and line[i + 1] == "x" and line[i + 2] in _HEX
                        and line[i + 3] in _HEX):
                    current.append(int(line[i + 2:i + 4], 16))
                    i += 3
                elif c == "\\" and i + 1 < n:
                    i += 1
                    current += _ESCAPES.get(line[i], line[i].encode())
                elif c == '"':
                    if i + 1 < n and not line[i + 1].isspace():
                        raise CaseError("closing quote must be followed by a space")
                    i += 1
                    break
                else:
                    current += c.encode()
            elif in_single:
                if i >= n:
                    raise CaseError("unbalanced single quotes")
                c = line[i]
                if c == "\\" and i + 1 < n and line[i + 1] == "'":
                    i += 1
                    current += b"'"
                elif c == "'":
                    if i + 1 < n and not line[i + 1].isspace():
                        raise CaseError("closing quote must be followed by a space")
                    i += 1
                    break
                else:
                    current += c.encode()
            else:
                if i >= n or line[i].isspace():
                    break
                c = line[i]
                if c == '"':
                    in_double = True
                elif c == "'":
                    in_single = True
                else:
                    current += c.encode()
            i += 1
        args.append(bytes(current))


class Case:
    """One command of a case file."""

    def __init__(self, path, line_number, text, args, block, client=1, mode="call"):
        self.path = path
        self.line_number = line_number
        self.text = text      # the line as written, for reports
        self.args = args      # list of bytes
        self.block = block    # the comment heading the block, for reports
        self.client = client  # which of the runner's connections sends it (1 to 9)
        # "call": send and compare the reply; "block": send a command that blocks; "receive":
        # compare the next reply of the connection (args: the blocked command, for reports).
        self.mode = mode


def load(path):
    """Returns the Cases of one file. Raises CaseError with the line number on bad quoting."""
    cases = []
    block = ""
    in_comment = False
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            text = raw.rstrip("\n")
            stripped = text.strip()
            if stripped.startswith("#"):
                # The first line of a comment names the block; the rest of the comment explains it.
                if not in_comment:
                    block = stripped.lstrip("#").strip()
                in_comment = True
                continue
            in_comment = False
            if not stripped:
                continue
            client = 1
            command = stripped
            mode = "call"
            if len(command) > 2 and command[0] == "@" and command[1] in "123456789" \
                    and (command[2].isspace() or command[2] in "&<"):
                client = int(command[1])
                mode = {"&": "block", "<": "receive"}.get(command[2], "call")
                command = command[3:].strip()
            if mode == "receive":
                if command:
                    raise CaseError("%s:%d: nothing may follow @N<" % (path, number))
                blocked = [c for c in cases if c.client == client and c.mode == "block"]
                if not blocked:
                    raise CaseError("%s:%d: no blocked command to receive" % (path, number))
                cases.append(Case(path, number, stripped, blocked[-1].args, block, client,
                                  mode))
                continue
            try:
                args = split_args(command)
            except CaseError as error:
                raise CaseError("%s:%d: %s" % (path, number, error)) from None
            if not args:
                raise CaseError("%s:%d: no command after the connection" % (path, number))
            cases.append(Case(path, number, stripped, args, block, client, mode))
    return cases


_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                  b"-_.:|*?[]{}@+/=,!~^%$&()<>;#")
_QUOTE_ESCAPES = {0x0A: b"\\n", 0x0D: b"\\r", 0x09: b"\\t", 0x08: b"\\b", 0x07: b"\\a",
                  0x22: b'\\"', 0x5C: b"\\\\"}


def quote_arg(arg):
    """One argument as a case-file word: bare when that is unambiguous, else double-quoted with
    escapes (split_args reads it back to the same bytes)."""
    if arg and all(c in _SAFE for c in arg) and arg[0] not in b"#'\"":
        return arg.decode("ascii")
    out = bytearray(b'"')
    for c in arg:
        if c in _QUOTE_ESCAPES:
            out += _QUOTE_ESCAPES[c]
        elif 0x20 <= c < 0x7F:
            out.append(c)
        else:
            out += b"\\x%02x" % c
    out += b'"'
    return out.decode("ascii")


def quote(args, arg_bytes_max=None):
    """A command as one case-file line. With arg_bytes_max, a longer argument is shown by its
    length and first bytes (for reports; such a line does not read back)."""
    words = []
    for arg in args:
        if arg_bytes_max is not None and len(arg) > arg_bytes_max:
            words.append("<%d bytes: %s...>" % (len(arg), quote_arg(arg[:arg_bytes_max // 2])))
        else:
            words.append(quote_arg(arg))
    return " ".join(words)
