#include "fuzz/dictionary.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "engine/registry/registry.h"

namespace keel::fuzz {
namespace {

// Values no command definition names: keys and a value, numbers at the edges of their types,
// empty and binary strings, configuration parameters and INFO sections, patterns.
constexpr std::string_view kValues[] = {
    "k0",
    "k1",
    "k2",
    "k3",
    "v",
    "",
    "0",
    "1",
    "-1",
    "100",
    "3",
    "2",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999",
    "abc",
    "1.5",
    "inf",
    "-0",
    "1e308",
    "*",
    "maxmemory",
    "hz",
    "appendonly",
    "appendfsync",
    "always",
    "aof-use-rdb-preamble",
    "loadaof",
    "keyspace",
    "all",
    "default",
    "normal",
    std::string_view("\0\r\n\xff", 4),
    "key with spaces",
    // BITFIELD's field types and '#' offsets, a bit offset past proto-max-bulk-len, PFDEBUG's
    // subcommands (plain arguments, not tokens), and an empty HyperLogLog's bytes.
    "u8",
    "i64",
    "u63",
    "i1",
    "#1",
    "4294967296",
    "GETREG",
    "DECODE",
    "ENCODING",
    "TODENSE",
    std::string_view("HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff", 18),
    // Geo: coordinates on and past the indexable limits and a point's 52-bit score.
    "180",
    "-180",
    "85.05112878",
    "-85.05112879",
    "13.361389",
    "38.115556",
    "3479099956230698",
    // Scripts (EVAL's body, SCRIPT LOAD) and what they read: both conversion directions, the
    // shebang flags, the libraries, and the SHA1 of "return 1" for EVALSHA. No loop: a script
    // that never ends needs a SCRIPT KILL from another client, which a harness without a
    // server loop cannot send.
    "return redis.call('get', KEYS[1])",
    "return redis.pcall('incr', KEYS[1])",
    "return {1, 'x', {err='E x'}, {ok='S'}, {double=1.5}, {map={a=1}}, {set={b=true}}, 2.5}",
    "#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], ARGV[1])",
    "redis.setresp(3) return redis.call('hgetall', KEYS[1])",
    "return cmsgpack.unpack(cmsgpack.pack({1, 'a', {b=2}}))",
    "return cjson.encode(cjson.decode(ARGV[1]))",
    "return struct.unpack('>I2', ARGV[1])",
    "[1,{\"a\":null}]",
    "e0e1f9fabfc9d4800c877a703b823ac0578ff8db",
    // Functions (FUNCTION LOAD's code, FCALL's names, FUNCTION RESTORE's payload): both forms of
    // redis.register_function with flags, the names they register, and a DUMP of library "fz"
    // (its checksum right, so that RESTORE reads past the footer check). No loop, as above.
    "#!lua name=fz\nredis.register_function('fzget', function(keys) return redis.call('get', "
    "keys[1]) end)",
    "#!lua name=fz2\nredis.register_function{function_name='fzset', flags={'allow-oom'}, "
    "callback=function(keys, args) return redis.call('set', keys[1], args[1]) end}",
    "#!lua name=fz3\nredis.register_function{function_name='fzro', flags={'no-writes'}, "
    "description='d', callback=function(keys) return redis.call('exists', keys[1]) end}",
    std::string_view(
        "\xf5\xc3\x40\x5a\x40\x64\x1f\x23\x21\x6c\x75\x61\x20\x6e\x61\x6d\x65\x3d\x66\x7a\x0a\x72"
        "\x65\x64\x69\x73\x2e\x72\x65\x67\x69\x73\x74\x65\x72\x5f\x66\x75\x6e\x0e\x63\x74\x69\x6f"
        "\x6e\x28\x27\x66\x7a\x67\x65\x74\x27\x2c\x20\xe0\x00\x11\x0b\x6b\x65\x79\x73\x29\x20\x72"
        "\x65\x74\x75\x72\x6e\x20\x06\x40\x36\x05\x63\x61\x6c\x6c\x28\x27\x80\x27\x40\x1e\x08\x5b"
        "\x31\x5d\x29\x20\x65\x6e\x64\x29\x0a\x00\x44\xc2\xe5\x17\x0e\xb1\x92\x96",
        106),
    "fzget",
    "fzset",
    "fzro",
    "fz",
};

void AddTokens(const std::vector<ArgSpec>& args, std::set<std::string>* tokens) {
  for (const ArgSpec& arg : args) {
    if (!arg.token.empty()) tokens->insert(arg.token);
    AddTokens(arg.children, tokens);
  }
}

Dictionary Build() {
  Dictionary dictionary;
  std::set<std::string> words;
  for (const CommandSpec* spec : Registry::Builtin().commands()) {
    dictionary.commands.push_back(spec->name);
    AddTokens(spec->args, &words);
    for (const auto& sub : spec->subcommands) {
      words.insert(sub->name);
      AddTokens(sub->args, &words);
    }
  }
  dictionary.commands.push_back("nosuch");
  dictionary.words.assign(words.begin(), words.end());
  for (std::string_view value : kValues) {
    if (std::find(dictionary.words.begin(), dictionary.words.end(), value) ==
        dictionary.words.end()) {
      dictionary.words.emplace_back(value);
    }
  }
  return dictionary;
}

}  // namespace

const Dictionary& CommandDictionary() {
  static const Dictionary* const kDictionary = new Dictionary(Build());
  return *kDictionary;
}

}  // namespace keel::fuzz
