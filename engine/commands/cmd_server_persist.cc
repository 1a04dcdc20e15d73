// SAVE and BGSAVE: RDB snapshots (engine/server/persistence.h); BGREWRITEAOF (aof.h).
// LASTSAVE, SHUTDOWN's save and INFO persistence are in cmd_info.cc, DEBUG RELOAD in cmd_debug.cc.
#include "engine/commands/context.h"
#include "engine/server/engine.h"

namespace keel {
namespace {

void CmdSave(CommandContext& context) {
  Engine& engine = context.server();
  Persistence& persistence = engine.persistence();
  if (persistence.save_in_progress()) {
    context.reply.Error("ERR Background save already in progress");
    return;
  }
  const std::string error = persistence.StartSave(Persistence::Trigger::kSave, &context.client);
  if (!error.empty()) {
    context.reply.Error(error);
    return;
  }
  // The reply comes once the file is durable (or the save failed).
  if (persistence.save_in_progress()) {
    engine.WaitForSave(context.client);
  } else {
    context.reply.Error("ERR");  // failed while walking (a write error)
  }
}

void CmdBgsave(CommandContext& context) {
  bool schedule = false;
  if (context.argc() > 1) {
    if (context.argc() == 2 && OptionIs(context.arg(1), "schedule")) {
      schedule = true;
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  Persistence& persistence = context.server().persistence();
  if (persistence.save_in_progress()) {
    context.reply.Error("ERR Background save already in progress");
    return;
  }
  // Redis runs one child at a time: while the AOF is rewritten, BGSAVE waits if asked to.
  if (context.server().aof().rewrite_in_progress()) {
    if (schedule) {
      persistence.ScheduleBackgroundSave();
      context.reply.SimpleString("Background saving scheduled");
    } else {
      context.reply.Error(
          "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE "
          "SCHEDULE in order to schedule a BGSAVE whenever possible.");
    }
    return;
  }
  // Inside EXEC the snapshot would catch the transaction half done: it starts from cron.
  if (context.in_transaction()) {
    persistence.ScheduleBackgroundSave();
    context.reply.SimpleString("Background saving scheduled");
    return;
  }
  const std::string error = persistence.StartSave(Persistence::Trigger::kBgsave, nullptr);
  if (!error.empty()) {
    context.reply.Error(error);
    return;
  }
  context.reply.SimpleString("Background saving started");
}

// BGREWRITEAOF: rewrites the AOF from a snapshot of this instant (aof.h), also when the AOF is
// off (a base and a manifest are written, as Redis does).
void CmdBgrewriteaof(CommandContext& context) {
  const std::string outcome = context.server().aof().StartRewrite(context.in_transaction());
  if (outcome.empty()) {
    context.reply.SimpleString("Background append only file rewriting started");
  } else if (outcome == "scheduled") {
    context.reply.SimpleString("Background append only file rewriting scheduled");
  } else {
    context.reply.Error(outcome);
  }
}

constexpr CommandDef kPersistCommands[] = {
    {.name = "save",
     .arity = 1,
     .flags = "admin noscript no_async_loading no_multi",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(N) where N is the total number of keys in all databases",
     .summary = "Synchronously save the dataset to disk",
     .args = "",
     .handler = CmdSave},
    {.name = "bgsave",
     .arity = -1,
     .flags = "admin noscript no_async_loading",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Asynchronously save the dataset to disk",
     .args = "?schedule=SCHEDULE@3.2.2",
     .handler = CmdBgsave,
     .history = "3.2.2 Added the `SCHEDULE` option."},
    {.name = "bgrewriteaof",
     .arity = 1,
     .flags = "admin noscript no_async_loading",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Asynchronously rewrite the append-only file",
     .args = "",
     .handler = CmdBgrewriteaof},
};

}  // namespace

void RegisterPersistCommands(Registry& registry) { registry.Add(kPersistCommands); }

}  // namespace keel
