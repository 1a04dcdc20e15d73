"""Unit tests of the differential runner's parts: case-file quoting, the RESP reader and writer,
the normalisers, and the random run's generators and table. Run: python3 -m unittest test_diff
(from this directory)."""

import random
import re
import socket
import unittest

import answers
import casefile
import generators
import normalise
import random_run
import resp
import run_diff
from generators import pubsub


def parse(raw):
    left, right = socket.socketpair()
    with left, right:
        left.sendall(raw)
        left.shutdown(socket.SHUT_WR)
        return resp.read_reply(resp.Reader(right))


class Replies:
    """A connection whose replies are the given bytes (then closed), for answers.Reading."""

    def __init__(self, raw):
        left, self.sock = socket.socketpair()
        with left:
            left.sendall(raw)
        self.reader = resp.Reader(self.sock)

    def receive(self):
        try:
            return resp.read_reply(self.reader)
        except resp.Closed:
            return run_diff.CLOSED, None



def confirmation(kind, name, count, push=False):
    name = b"$-1\r\n" if name is None else b"$%d\r\n%s\r\n" % (len(name), name)
    return b"%s3\r\n$%d\r\n%s\r\n%s:%d\r\n" % (b">" if push else b"*", len(kind), kind, name,
                                                  count)


def message(channel, text, pattern=None, push=False):
    words = ([b"pmessage", pattern] if pattern else [b"message"]) + [channel, text]
    return b"%s%d\r\n" % (b">" if push else b"*", len(words)) + b"".join(
        b"$%d\r\n%s\r\n" % (len(word), word) for word in words)


def subscribed(channels=(), patterns=(), shard=()):
    subscriptions = answers.Subscriptions()
    subscriptions.names["channels"].update(channels)
    subscriptions.names["patterns"].update(patterns)
    subscriptions.names["shard"].update(shard)
    return subscriptions


NEXT = b"+NEXT\r\n"  # a value after the answer: what the answer must not read


class AnswerTest(unittest.TestCase):
    """How many values a command sends where (answers.plan), and what of them is compared
    (answers.form): reading one too few or too many desynchronises every later comparison."""

    def answer(self, args, raw, everyone, me=0, queued=None):
        """(answer, its form, the value read after it) of `args` answered `raw` (then NEXT)."""
        replies = Replies(raw + NEXT)
        reading = answers.Reading(replies)
        answer = answers.plan(args, queued, everyone, me, reading)
        form = answers.form(answer.parts, reading, answer.in_exec)[0]
        return answer, form, replies.receive()[0]

    def test_subscribe_reads_one_confirmation_per_name(self):
        raw = confirmation(b"subscribe", b"a", 1) + confirmation(b"subscribe", b"a", 1) + \
            confirmation(b"subscribe", b"b", 3)
        everyone = [subscribed(patterns=[b"p*"])]
        _, form, after = self.answer([b"SUBSCRIBE", b"a", b"a", b"b"], raw, everyone)
        self.assertEqual((form, after), (raw, NEXT))
        self.assertEqual(everyone[0].names["channels"], {b"a", b"b"})

    def test_unsubscribe_without_names_reads_each_subscription_in_any_order(self):
        def unsubscribe_all(names):
            return b"".join(confirmation(b"unsubscribe", name, count)
                            for name, count in zip(names, (3, 2, 1)))
        forms = []
        for names in ([b"a", b"b", b"c"], [b"c", b"a", b"b"]):
            everyone = [subscribed(channels=[b"a", b"b", b"c"], patterns=[b"p*"])]
            _, form, after = self.answer([b"UNSUBSCRIBE"], unsubscribe_all(names), everyone)
            self.assertEqual(after, NEXT)
            self.assertFalse(everyone[0].names["channels"])
            forms.append(form)
        self.assertEqual(forms[0], forms[1])
        # The counts stay in their places: a server that counted wrong still differs.
        wrong = unsubscribe_all([b"a", b"b", b"c"]).replace(b":2\r\n", b":0\r\n")
        everyone = [subscribed(channels=[b"a", b"b", b"c"], patterns=[b"p*"])]
        self.assertNotEqual(self.answer([b"UNSUBSCRIBE"], wrong, everyone)[1], forms[0])

    def test_unsubscribe_from_nothing_reads_one_null(self):
        raw = confirmation(b"sunsubscribe", None, 0)
        everyone = [subscribed(channels=[b"a"])]
        answer, form, after = self.answer([b"sunsubscribe"], raw, everyone)
        self.assertEqual((form, after), (raw, NEXT))
        self.assertEqual([part[0] for part in answer.parts], [1])

    def test_punsubscribe_without_names_is_compared_in_order(self):
        everyone = [subscribed(patterns=[b"a*", b"b*"])]
        raw = confirmation(b"punsubscribe", b"b*", 1) + confirmation(b"punsubscribe", b"a*", 0)
        answer, form, after = self.answer([b"PUNSUBSCRIBE"], raw, everyone)
        self.assertEqual((form, after), (raw, NEXT))
        self.assertEqual([part[1] for part in answer.parts], [None])

    def test_refused_or_queued_commands_send_one_value_and_change_nothing(self):
        for raw in (b"-ERR Can't execute 'subscribe'\r\n", b"+QUEUED\r\n"):
            everyone = [subscribed(channels=[b"a", b"b"])]
            _, form, after = self.answer([b"UNSUBSCRIBE"], raw, everyone)
            self.assertEqual((form, after), (raw, NEXT))
            self.assertEqual(everyone[0].names["channels"], {b"a", b"b"})

    def test_reset_ends_every_subscription(self):
        everyone = [subscribed(channels=[b"a"], patterns=[b"a*"], shard=[b"s"])]
        self.answer([b"RESET"], b"+RESET\r\n", everyone)
        self.assertFalse(everyone[0].any())

    def test_publish_pushes_to_each_matching_subscription(self):
        everyone = [subscribed(), subscribed(channels=[b"news"], patterns=[b"n*", b"news*", b"x*"]),
                    subscribed(shard=[b"news"]), subscribed(channels=[b"other"])]
        answer, form, after = self.answer([b"PUBLISH", b"news", b"m"], b":3\r\n", everyone)
        self.assertEqual((form, after), (b":3\r\n", NEXT))
        self.assertEqual(list(answer.pushes), [1])
        self.assertEqual([part[0] for part in answer.pushes[1]], [3])
        self.assertEqual(answer.messages, 3)
        answer = self.answer([b"SPUBLISH", b"news", b"m"], b":1\r\n", everyone)[0]
        self.assertEqual(list(answer.pushes), [2])

    def test_pattern_messages_compare_in_any_order_after_the_channel_message(self):
        parts = [(3, answers.normalise.PUBLISHED[1], "pattern order")]

        def form(raw):
            reading = answers.Reading(Replies(raw)).read(3)
            return answers.form(parts, reading)[0]
        first = message(b"news", b"m") + message(b"news", b"m", b"n*") + \
            message(b"news", b"m", b"news*")
        swapped = message(b"news", b"m") + message(b"news", b"m", b"news*") + \
            message(b"news", b"m", b"n*")
        late = message(b"news", b"m", b"n*") + message(b"news", b"m") + \
            message(b"news", b"m", b"news*")
        self.assertEqual(form(first), form(swapped))
        self.assertNotEqual(form(first), form(late))

    def test_a_subscribed_publisher_reads_its_own_messages_before_the_reply(self):
        everyone = [subscribed(channels=[b"news"]), subscribed(patterns=[b"n*"])]
        raw = message(b"news", b"m", push=True) + b":2\r\n"
        answer, form, after = self.answer([b"publish", b"news", b"m"], raw, everyone)
        self.assertEqual((form, after), (raw, NEXT))
        self.assertEqual(list(answer.pushes), [1])

    def test_redis_disagreeing_with_the_model_stops_the_run(self):
        everyone = [subscribed(), subscribed(channels=[b"news"])]
        with self.assertRaises(answers.ModelError):
            self.answer([b"PUBLISH", b"news", b"m"], b":0\r\n", everyone)
        with self.assertRaises(answers.ModelError):
            self.answer([b"SUBSCRIBE", b"a"], confirmation(b"subscribe", b"a", 2), [subscribed()])

    def test_exec_reads_the_replies_past_its_count(self):
        # Redis 7.0's EXEC counts the queued commands; the replies of a SUBSCRIBE of two channels
        # and the message a PUBLISH pushes to its own (now subscribed) connection are more.
        queued = [[b"SUBSCRIBE", b"a", b"b"], [b"PUBLISH", b"a", b"m"], [b"PING"]]
        raw = b"*3\r\n" + confirmation(b"subscribe", b"a", 1) + \
            confirmation(b"subscribe", b"b", 2) + message(b"a", b"m") + b":1\r\n" + \
            b"*2\r\n$4\r\npong\r\n$0\r\n\r\n"
        everyone = [subscribed()]
        answer, form, after = self.answer([b"EXEC"], raw, everyone, queued=queued)
        self.assertEqual((form, after), (raw, NEXT))
        self.assertEqual(everyone[0].names["channels"], {b"a", b"b"})
        self.assertEqual(answer.messages, 1)

    def test_exec_normalises_each_element_as_its_command(self):
        queued = [[b"TIME"], [b"SET", b"k", b"v"], [b"TIME"]]

        def form(raw):
            return self.answer([b"EXEC"], raw, [subscribed()], queued=queued)[1]
        at_one = b"*3\r\n*2\r\n$10\r\n1700000000\r\n$1\r\n5\r\n+OK\r\n" \
                 b"*2\r\n$10\r\n1700000000\r\n$1\r\n6\r\n"
        at_two = b"*3\r\n*2\r\n$10\r\n1700000001\r\n$1\r\n9\r\n+OK\r\n" \
                 b"*2\r\n$10\r\n1700000001\r\n$1\r\n1\r\n"
        self.assertEqual(form(at_one), form(at_two))
        failed = at_one.replace(b"+OK", b"-ERR no")
        self.assertNotEqual(form(at_one), form(failed))
        aborted = b"-EXECABORT Transaction discarded because of previous errors.\r\n"
        self.assertEqual(form(aborted), aborted)
        self.assertEqual(form(b"*-1\r\n"), b"*-1\r\n")  # a broken WATCH

    def test_keel_is_read_no_further_than_it_agrees(self):
        # Three confirmations expected; Keel refuses instead: reading on would wait for values
        # that never come.
        redis = answers.Reading(Replies(confirmation(b"subscribe", b"a", 1) * 3)).read(3)
        keel = answers.Reading(Replies(b"-ERR no\r\n" + NEXT)).read_like(redis)
        self.assertEqual(len(keel.values), 1)

    def test_glob_is_redis_stringmatchlen(self):
        # Each checked against redis-server 7.0's PUBSUB CHANNELS.
        cases = [(b"*", b"", False), (b"*", b"x", True), (b"n*", b"n", True),
                 (b"n\\*", b"n*", True), (b"n\\*", b"nx", False), (b"c?", b"c", False),
                 (b"[^_n]*", b"ch", True), (b"[^_n]*", b"news", False),
                 (b"news.[a-f]?", b"news.eu", True), (b"news.[a-f]?", b"news.us", False),
                 (b"[a", b"a", True), (b"[z-a]", b"q", True), (b"a\\", b"a\\", True)]
        for pattern, text, matches in cases:
            self.assertEqual(answers.glob_match(pattern, text), matches, (pattern, text))


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

    def test_quote_reads_back(self):
        self.assertEqual(casefile.quote([b"set", b"k", b"a b", b"\x00\r\n", b""]),
                         'set k "a b" "\\x00\\r\\n" ""')
        rng = random.Random(7)
        for _ in range(500):
            args = [bytes(rng.randrange(256) for _ in range(rng.randint(0, 6)))
                    for _ in range(rng.randint(1, 4))]
            self.assertEqual(casefile.split_args(casefile.quote(args)), args)
        self.assertEqual(casefile.quote([b"echo", b"x" * 50], 10), 'echo <50 bytes: xxxxx...>')

    def test_connection_prefix(self):
        import os
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
            handle.write("# block\nget k\n@2 set k v\n@1 get k\n@20 x\n")
        try:
            cases = casefile.load(handle.name)
        finally:
            os.unlink(handle.name)
        self.assertEqual([c.client for c in cases], [1, 2, 1, 1])
        self.assertEqual(cases[1].args, [b"set", b"k", b"v"])
        self.assertEqual(cases[3].args, [b"@20", b"x"])  # not a connection prefix


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
        self.assertIsNone(normalise.normaliser_for([b"command", b"getkeys", b"del", b"b", b"a"]))
        self.assertIsNone(normalise.normaliser_for([b"get", b"k"]))

    def test_clock_replies_keep_only_missing_and_persistent(self):
        for name in ("ttl", "pttl", "expiretime", "pexpiretime"):
            self.assertEqual(self.normalised([name, "k"], b":99\r\n"), b":<erased>\r\n")
            self.assertEqual(self.normalised([name, "k"], b":-1\r\n"), b":-1\r\n")
            self.assertEqual(self.normalised([name, "k"], b":-2\r\n"), b":-2\r\n")
        self.assertEqual(self.normalised(["object", "idletime", "k"], b":3\r\n"),
                         b":<erased>\r\n")
        self.assertEqual(self.normalised(["object", "idletime", "k"], b"$-1\r\n"), b"$-1\r\n")

    def test_scan_compares_the_cursor_and_the_keys_as_a_set(self):
        raw = b"*2\r\n$1\r\n0\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n"
        self.assertEqual(self.normalised(["scan", "0"], raw),
                         b"*2\r\n$1\r\n0\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n")
        raw = b"*2\r\n$2\r\n17\r\n*0\r\n"
        self.assertEqual(self.normalised(["scan", "0"], raw), raw)
        self.assertEqual(self.normalised(["keys", "*"], b"*2\r\n$1\r\nb\r\n$1\r\na\r\n"),
                         b"*2\r\n$1\r\na\r\n$1\r\nb\r\n")

    def test_randomkey_compares_whether_there_is_a_key(self):
        self.assertEqual(self.normalised(["randomkey"], b"$2\r\nk1\r\n"),
                         b"$8\r\n<erased>\r\n")
        self.assertEqual(self.normalised(["randomkey"], b"$-1\r\n"), b"$-1\r\n")
        self.assertEqual(self.normalised(["randomkey"], b"_\r\n"), b"_\r\n")

    def info_entry(self, name, subcommands=b"*0\r\n"):
        # name, arity, flags, first, last, step, categories, tips, key specs, subcommands
        return (b"*10\r\n$%d\r\n%s\r\n:-2\r\n*0\r\n:0\r\n:0\r\n:0\r\n*0\r\n*0\r\n*0\r\n"
                % (len(name), name) + subcommands)

    def test_command_info_sorts_subcommands_keeps_named_order(self):
        subs = b"*2\r\n" + self.info_entry(b"c|b") + self.info_entry(b"c|a")
        sorted_subs = b"*2\r\n" + self.info_entry(b"c|a") + self.info_entry(b"c|b")
        raw = b"*2\r\n" + self.info_entry(b"z") + self.info_entry(b"c", subs)
        self.assertEqual(self.normalised(["command", "info", "z", "c"], raw),
                         b"*2\r\n" + self.info_entry(b"z") + self.info_entry(b"c", sorted_subs))
        self.assertEqual(self.normalised(["command", "info"], raw),
                         b"*2\r\n" + self.info_entry(b"c", sorted_subs) + self.info_entry(b"z"))

    def test_command_docs_sorts_subcommands_keeps_named_order(self):
        def doc(subcommands=None):
            if subcommands is None:
                return b"%1\r\n$5\r\ngroup\r\n$1\r\ng\r\n"
            return b"%1\r\n$11\r\nsubcommands\r\n%2\r\n" + subcommands
        unsorted = b"$3\r\nc|b\r\n" + doc() + b"$3\r\nc|a\r\n" + doc()
        in_order = b"$3\r\nc|a\r\n" + doc() + b"$3\r\nc|b\r\n" + doc()
        raw = b"%2\r\n$1\r\nz\r\n" + doc() + b"$1\r\nc\r\n" + doc(unsorted)
        self.assertEqual(self.normalised(["command", "docs", "z", "c"], raw),
                         b"%2\r\n$1\r\nz\r\n" + doc() + b"$1\r\nc\r\n" + doc(in_order))
        self.assertEqual(self.normalised(["command", "docs"], raw),
                         b"%2\r\n$1\r\nc\r\n" + doc(in_order) + b"$1\r\nz\r\n" + doc())


# A command table like keel-server's today (COMMAND LIST and arities), for the generator tests.
COMMANDS = {"get": 2, "set": -3, "del": -2, "exists": -2, "dbsize": 1, "flushdb": -1,
            "flushall": -1, "ping": -1, "echo": 2, "select": 2, "auth": -2, "hello": -1,
            "quit": -1, "reset": 1, "info": -1, "shutdown": -1, "client": -2, "client|id": 2,
            "client|setname": 3, "client|getname": 2, "client|info": 2, "client|list": -2,
            "client|help": 2, "config": -2, "config|get": -3, "config|set": -4,
            "config|resetstat": 2, "config|rewrite": 2, "config|help": 2, "command": -1,
            "command|count": 2, "command|list": -2, "command|info": -2, "command|docs": -2,
            "command|getkeys": -3, "command|getkeysandflags": -3, "command|help": 2}


class Options:
    only = None
    known_divergences = False


class GeneratorTest(unittest.TestCase):
    def setUp(self):
        self.table, self.not_generated, self.known = generators.load()

    def draw(self, name, seed=1, count=2000):
        gen = generators.Gen(random.Random(seed), COMMANDS, self.table, {"client"})
        function = self.table[name][2] if name in self.table else self.not_generated[name][2]
        return [function(gen) for _ in range(count)]

    def test_every_command_of_the_table_has_a_generator(self):
        entries = random_run.build_table(COMMANDS, self.table, self.not_generated, [], Options())
        names = {name for _, name, _ in entries}
        self.assertIn("set", names)
        self.assertIn("(wrong arity)", names)
        self.assertNotIn("command|count", names)  # NOT_GENERATED
        with self.assertRaisesRegex(random_run.Coverage, "does not generate: xnosuch"):
            random_run.build_table(dict(COMMANDS, xnosuch=-4), self.table, self.not_generated, [],
                                   Options())

    def test_known_divergences_only_on_request(self):
        known = [("get", "a planted divergence", lambda gen: [b"get", b"k"])]
        options = Options()
        names = {name for _, name, _ in
                 random_run.build_table(COMMANDS, self.table, self.not_generated, known, options)}
        self.assertNotIn("get (known divergence)", names)
        options.known_divergences = True
        names = {name for _, name, _ in
                 random_run.build_table(COMMANDS, self.table, self.not_generated, known, options)}
        self.assertIn("get (known divergence)", names)

    def test_the_same_seed_gives_the_same_commands(self):
        for name in self.table:
            self.assertEqual(self.draw(name, 5, 50), self.draw(name, 5, 50), name)
        self.assertNotEqual(self.draw("set", 5, 50), self.draw("set", 6, 50))

    def test_shutdown_never_stops_a_server(self):
        # Redis 7.0 stops on SHUTDOWN with only known flags, not SAVE with NOSAVE, and ABORT
        # alone (refused when no shutdown is in progress) or not at all.
        flags = {b"nosave", b"save", b"now", b"force", b"abort"}
        for args in self.draw("shutdown"):
            words = {word.lower() for word in args[1:]}
            stops = (words <= flags and not {b"save", b"nosave"} <= words
                     and b"abort" not in words)
            self.assertFalse(stops, args)

    def test_config_set_leaves_what_would_make_servers_differ(self):
        forbidden = {b"port", b"bind", b"dir", b"requirepass", b"save", b"appendonly",
                     b"maxclients", b"proto-max-bulk-len", b"client-query-buffer-limit"}
        for args in self.draw("config|set"):
            names = set(args[2::2])
            self.assertFalse(names & forbidden, args)
            for name, value in zip(args[2::2], args[3::2]):
                if name == b"maxmemory":  # a limit near the data size would refuse writes
                    self.assertIn(value, (b"0", b"1gb", b"2GB", b"-1", b"1zb", b"abc"))

    def test_wrong_arity_is_wrong(self):
        for args in self.draw("(wrong arity)"):
            name = args[0].decode("latin-1").lower()
            if len(args) > 1 and name + "|" + args[1].decode("latin-1").lower() in COMMANDS:
                name += "|" + args[1].decode("latin-1").lower()
            arity = COMMANDS[name]
            self.assertFalse(len(args) == arity if arity > 0 else len(args) >= -arity, args)

    def test_expiries_are_long_or_invalid(self):
        # No key may expire during a run: relative times are at least 1000 s, absolute ones in
        # the far future (or not numbers, or out of range, which are refused).
        for args in self.draw("set"):
            words = [word.lower() for word in args]
            for option, minimum in ((b"ex", 1000), (b"px", 1000000), (b"exat", 4102444800),
                                    (b"pxat", 4102444800000)):
                if option in words[3:] and words.index(option, 3) + 1 < len(words):
                    text = words[words.index(option, 3) + 1]
                    if not re.fullmatch(rb"-?[1-9][0-9]*|0", text):
                        continue  # Redis refuses it: not an integer
                    amount = int(text)
                    self.assertTrue(amount >= minimum or amount <= 0 or amount >= 2 ** 62,
                                    args)

    def test_expire_times_are_far_or_not_in_the_future(self):
        # EXPIRE and friends: a relative time of at least 1000 s, an absolute one in the far
        # future, or one that is not in the future at all (the key goes within the command); or
        # a refused one (not an integer, or overflowing).
        far = {"expire": 1000, "pexpire": 1000000, "expireat": 4102444800,
               "pexpireat": 4102444800000}
        for name, minimum in far.items():
            for args in self.draw(name):
                if len(args) < 3 or not re.fullmatch(rb"-?[1-9][0-9]*|0", args[2]):
                    continue
                amount = int(args[2])
                past = 1000000000 * (1000 if name == "pexpireat" else 1)
                in_the_past = amount <= (past if name.endswith("at") else 0)
                self.assertTrue(amount >= minimum or in_the_past or abs(amount) >= 2 ** 53, args)

    def test_scan_asks_for_whole_iterations(self):
        for args in self.draw("scan"):
            words = [word.lower() for word in args]
            if re.fullmatch(rb"[+-]?0*", args[1]) is None:
                continue  # an invalid cursor: refused
            for i, word in enumerate(words[2:-1], start=2):
                if word == b"count" and re.fullmatch(rb"[1-9][0-9]*", args[i + 1]):
                    self.assertGreaterEqual(int(args[i + 1]), 10, args)

    def test_no_pattern_meets_keyspace_notifications(self):
        # The runner does not follow them (CONFIG SET notify-keyspace-events is generated).
        for pattern in pubsub.PATTERNS:
            for channel in (b"__keyspace@0__:k0", b"__keyevent@0__:set"):
                self.assertFalse(answers.glob_match(pattern, channel), pattern)

    def test_sent_follows_subscriptions(self):
        sent = pubsub.Sent()
        steps = [([b"SUBSCRIBE", b"a"], {"channels"}),
                 ([b"psubscribe", b"n*"], {"channels", "patterns"}),
                 ([b"PUNSUBSCRIBE", b"n*"], {"channels", "patterns"}),
                 ([b"PUNSUBSCRIBE"] + pubsub.PATTERNS, {"channels"}),
                 ([b"ssubscribe", b"s"], {"channels", "shard"}),
                 ([b"RESET", b"x"], {"channels", "shard"}),  # refused: no way out
                 ([b"sunsubscribe"], {"channels"}),
                 ([b"unsubscribe"], set())]
        for args, joined in steps:
            sent.follow(args)
            self.assertEqual(sent.joined, joined, args)

    def test_leave_leaves(self):
        gen = generators.Gen(random.Random(3), COMMANDS, self.table)
        for kinds in ({"channels"}, {"patterns"}, {"shard"}, {"channels", "shard"}):
            for _ in range(50):
                sent = pubsub.Sent()
                sent.joined = set(kinds)
                sent.follow(pubsub.leave(gen, sent.joined))
                self.assertLess(len(sent.joined), len(kinds))

    def test_command_info_names_no_partial_container(self):
        for args in self.draw("command|info") + self.draw("command|docs"):
            self.assertNotIn(b"client", [word.lower() for word in args[2:]], args)


if __name__ == "__main__":
    unittest.main()
