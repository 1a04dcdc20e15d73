"""Unit tests of the differential runner's parts: case-file quoting, the RESP reader and writer,
and the normalisers. Run: python3 -m unittest test_diff (from this directory)."""

import socket
import unittest

import casefile
import normalise
import resp


def parse(raw):
    left, right = socket.socketpair()
    with left, right:
        left.sendall(raw)
        left.shutdown(socket.SHUT_WR)
        return resp.read_reply(resp.Reader(right))


class SplitArgsTest(unittest.TestCase):
    def test_words_and_quotes(self):
        self.assertEqual(casefile.split_args('set k "a b" \'c d\''),
                         [b"set", b"k", b"a b", b"c d"])
        self.assertEqual(casefile.split_args('  get   k  '), [b"get", b"k"])
        self.assertEqual(casefile.split_args('echo ""'), [b"echo", b""])

    def test_escapes(self):
        self.assertEqual(casefile.split_args(r'echo "a\x00b\r\n\t\"\\"'),
                         [b"echo", b"a\x00b\r\n\t\"\\"])
        self.assertEqual(casefile.split_args(r'echo "\xff\xZZ"'), [b"echo", b"\xffxZZ"])
        self.assertEqual(casefile.split_args(r"echo 'it\'s \n'"), [b"echo", b"it's \\n"])

    def test_errors(self):
        for line in ['echo "open', "echo 'open", 'echo "a"b', "echo 'a'b"]:
            with self.assertRaises(casefile.CaseError, msg=line):
                casefile.split_args(line)


class RespTest(unittest.TestCase):
    def test_round_trip_keeps_every_byte(self):
        replies = [
            b"+OK\r\n", b"-ERR x\r\n", b":-5\r\n", b"$-1\r\n", b"*-1\r\n", b"$0\r\n\r\n",
            b"$3\r\na\r\n\r\n", b"_\r\n", b",1.5\r\n", b"#t\r\n", b"(123\r\n",
            b"=7\r\ntxt:a\r\n\r\n", b"*2\r\n:1\r\n*1\r\n+x\r\n", b"%1\r\n$1\r\nk\r\n~1\r\n:2\r\n",
            b">2\r\n+a\r\n+b\r\n", b"|1\r\n+key\r\n+val\r\n:7\r\n",
        ]
        for raw in replies:
            got_raw, value = parse(raw + b"+next\r\n")
            self.assertEqual(got_raw, raw)
            self.assertEqual(resp.serialise(value), raw)

    def test_closed_before_a_whole_reply(self):
        with self.assertRaises(resp.Closed):
            parse(b"$5\r\nab")


class NormaliseTest(unittest.TestCase):
    def normalised(self, args, raw):
        found = normalise.normaliser_for([a.encode() for a in args])
        self.assertIsNotNone(found)
        return resp.serialise(found[2](parse(raw)[1], [a.encode() for a in args]))

    def test_hello_erases_only_the_id(self):
        raw = b"%2\r\n$2\r\nid\r\n:7\r\n$5\r\nproto\r\n:3\r\n"
        self.assertEqual(self.normalised(["hello", "3"], raw),
                         b"%2\r\n$2\r\nid\r\n:<erased>\r\n$5\r\nproto\r\n:3\r\n")
        flat = b"*4\r\n$2\r\nid\r\n:7\r\n$5\r\nproto\r\n:2\r\n"
        self.assertIn(b":<erased>\r\n$5\r\nproto\r\n:2\r\n", self.normalised(["HELLO"], flat))

    def test_client_list_keeps_names_and_state(self):
        text = b"id=3 addr=1.2.3.4:5 name=x db=2\n"
        want = b"id=<erased> addr=<erased> name=x db=2\n"
        self.assertEqual(self.normalised(["client", "list"], b"$%d\r\n%s\r\n" % (len(text), text)),
                         b"$%d\r\n%s\r\n" % (len(want), want))
        verbatim = b"=%d\r\ntxt:%s\r\n" % (len(text) + 4, text)
        self.assertEqual(self.normalised(["client", "info"], verbatim),
                         b"=%d\r\ntxt:%s\r\n" % (len(want) + 4, want))

    def test_info_keeps_names_and_compared_values(self):
        text = (b"# Server\r\nredis_version:7.0.15\r\nprocess_id:9\r\n\r\n# Keyspace\r\n"
                b"db0:keys=2,expires=1,avg_ttl=5\r\n")
        raw = b"$%d\r\n%s\r\n" % (len(text), text)
        got = self.normalised(["info"], raw)
        self.assertIn(b"redis_version:7.0.15\r\nprocess_id:<erased>\r\n", got)
        self.assertIn(b"db0:keys=2,expires=1,avg_ttl=<erased>", got)

    def test_table_order_only_for_the_whole_table(self):
        raw = b"*2\r\n$1\r\nb\r\n$1\r\na\r\n"
        self.assertEqual(self.normalised(["command", "list"], raw),
                         b"*2\r\n$1\r\na\r\n$1\r\nb\r\n")
        self.assertIsNone(normalise.normaliser_for([b"command", b"info", b"get"]))
        self.assertIsNone(normalise.normaliser_for([b"command", b"getkeys", b"del", b"b", b"a"]))
        self.assertIsNone(normalise.normaliser_for([b"get", b"k"]))


if __name__ == "__main__":
    unittest.main()
