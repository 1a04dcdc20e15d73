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
