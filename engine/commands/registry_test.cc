// The registry: every CommandDef of every family parses, and malformed definitions are refused
// with a reason (the notations are described in command_def.h).
#include <set>
#include <string>

#include "engine/registry/registry.h"
#include "sim/testing/fixtures.h"

namespace keel {
namespace {

void NoHandler(CommandContext&) {}

std::string ParseError(const CommandDef& def) {
  CommandSpec spec;
  return ParseCommandDef(def, &spec);
}

CommandDef Valid() {
  return CommandDef{.name = "x",
                    .arity = -2,
                    .flags = "write denyoom",
                    .acl = "@string",
                    .keys = "RW update: index 1 range 0 1 0",
                    .group = "string",
                    .since = "1.0.0",
                    .complexity = "O(1)",
                    .summary = "s",
                    .args = "key:key#0 ?opt=OPT@2.0.0 *value:string",
                    .handler = NoHandler};
}

TEST(RegistryTest, EveryRegisteredCommandIsConsistent) {
  sim::SimEnv env(1);
  Engine engine(env, Config());
  const Registry& registry = engine.registry();
  ASSERT_GE(registry.commands().size(), 19u);  // the foundation's commands
  std::set<std::string> names;
  for (size_t id = 0; id < registry.all().size(); id++) {
    const CommandSpec* spec = registry.all()[id];
    EXPECT_EQ(spec->id, id);
    EXPECT_TRUE(names.insert(spec->full_name).second) << "registered twice: " << spec->full_name;
    EXPECT_EQ(registry.FindByFullName(spec->full_name), spec);
    // A container has no handler of its own only when it needs a subcommand (arity -2).
    if (spec->handler == nullptr) {
      EXPECT_TRUE(spec->is_container()) << spec->full_name;
      EXPECT_EQ(spec->arity, -2) << spec->full_name;
    }
    if (spec->parent != nullptr) {
      EXPECT_EQ(spec->full_name, spec->parent->name + "|" + spec->name);
      // Subcommand arities count the container's name too.
      EXPECT_TRUE(spec->arity >= 2 || spec->arity <= -2) << spec->full_name;
    }
    for (const KeySpec& key_spec : spec->key_specs) {
      EXPECT_NE(key_spec.flags, 0u) << spec->full_name << ": a key spec without flags";
    }
  }
}

TEST(RegistryTest, LookupIgnoresCaseAndResolvesSubcommands) {
  sim::SimEnv env(1);
  Engine engine(env, Config());
  const Registry& registry = engine.registry();
  ASSERT_NE(registry.Find("get"), nullptr);
  EXPECT_EQ(registry.Find("GeT"), registry.Find("get"));
  EXPECT_EQ(registry.Find("nosuch"), nullptr);
  EXPECT_EQ(registry.Find(""), nullptr);
  bool unknown = false;
  const std::string_view config_get[] = {"CONFIG", "Get", "port"};
  const CommandSpec* spec = registry.Resolve(config_get, &unknown);
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->full_name, "config|get");
  EXPECT_FALSE(unknown);
  const std::string_view config_bad[] = {"config", "nosuch"};
  EXPECT_EQ(registry.Resolve(config_bad, &unknown), nullptr);
  EXPECT_TRUE(unknown);
  const std::string_view config_alone[] = {"config"};
  spec = registry.Resolve(config_alone, &unknown);
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->full_name, "config");
  EXPECT_FALSE(unknown);
}

TEST(RegistryTest, ParsesTheNotations) {
  CommandSpec spec;
  const CommandDef def = Valid();
  ASSERT_EQ(ParseCommandDef(def, &spec), "");
  EXPECT_EQ(spec.flags, kCmdWrite | kCmdDenyOom);
  // Implied categories: write from the flag, slow because not fast.
  EXPECT_EQ(spec.acl, kAclString | kAclWrite | kAclSlow);
  ASSERT_EQ(spec.args.size(), 3u);
  EXPECT_EQ(spec.args[0].type, "key");
  EXPECT_EQ(spec.args[0].key_spec_index, 0);
  EXPECT_EQ(spec.args[1].type, "pure-token");
  EXPECT_EQ(spec.args[1].token, "OPT");
  EXPECT_EQ(spec.args[1].since, "2.0.0");
  EXPECT_EQ(spec.args[1].flags, ArgSpec::kOptional);
  EXPECT_EQ(spec.args[2].flags, ArgSpec::kMultiple);
  EXPECT_EQ(spec.legacy_first_key, 1);
  EXPECT_EQ(spec.legacy_last_key, 1);
  EXPECT_EQ(spec.legacy_key_step, 1);
}

TEST(RegistryTest, DerivesLegacyKeyRangesAsRedis) {
  CommandDef def = Valid();
  def.keys = "RW: index 1 range -1 2 0";  // MSET-like: every other argument to the end
  CommandSpec spec;
  ASSERT_EQ(ParseCommandDef(def, &spec), "");
  EXPECT_EQ(spec.legacy_first_key, 1);
  EXPECT_EQ(spec.legacy_last_key, -1);
  EXPECT_EQ(spec.legacy_key_step, 2);
  EXPECT_EQ(spec.flags & kCmdMovableKeys, 0u);

  def.keys = "RO: keyword STREAMS 1 range -1 1 2";  // not an index range: keys are movable
  CommandSpec movable;
  ASSERT_EQ(ParseCommandDef(def, &movable), "");
  EXPECT_NE(movable.flags & kCmdMovableKeys, 0u);
  EXPECT_EQ(movable.legacy_first_key, 0);

  def.keys = "RW: index 1 range 0 1 0; RO: index 2 range 0 1 0";  // consecutive ranges merge
  CommandSpec merged;
  ASSERT_EQ(ParseCommandDef(def, &merged), "");
  EXPECT_EQ(merged.legacy_first_key, 1);
  EXPECT_EQ(merged.legacy_last_key, 2);
  EXPECT_EQ(merged.flags & kCmdMovableKeys, 0u);
}

TEST(RegistryTest, RefusesMalformedDefinitions) {
  CommandDef def = Valid();
  def.flags = "write nosuchflag";
  EXPECT_NE(ParseError(def), "");
  def = Valid();
  def.flags = "movablekeys";  // derived from the key specs, never written
  EXPECT_NE(ParseError(def), "");
  def = Valid();
  def.arity = 0;
  EXPECT_NE(ParseError(def), "");
  def = Valid();
  def.acl = "@nosuchcategory";
  EXPECT_NE(ParseError(def), "");
  def = Valid();
  def.keys = "RW index 1 range 0 1 0";  // missing ':'
  EXPECT_NE(ParseError(def), "");
  def = Valid();
  def.keys = "RW: index x range 0 1 0";
  EXPECT_NE(ParseError(def), "");
  def = Valid();
  def.keys = "RW: index 1 range 0 1";
  EXPECT_NE(ParseError(def), "");
  def = Valid();
  def.args = "choice:oneof{a=A b=B";  // unclosed
  EXPECT_NE(ParseError(def), "");
  def = Valid();
  def.args = "choice:oneof";  // a oneof needs alternatives
  EXPECT_NE(ParseError(def), "");
  def = Valid();
  def.args = "value:string{nested:string}";  // only oneof and block nest
  EXPECT_NE(ParseError(def), "");
  def = Valid();
  def.args = "value:nosuchtype";
  EXPECT_NE(ParseError(def), "");
  def = Valid();
  def.history = "7.0.0";  // an entry without text
  EXPECT_NE(ParseError(def), "");
}

}  // namespace
}  // namespace keel
