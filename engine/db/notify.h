// Keyspace events: Redis's notify-keyspace-events classes and the event a write announces.
//
// The write path (keyspace.h) announces every change with the event name and class Redis 7.0 gives
// it ("set" in $, "del" in g, "expired" in x, ...; conformance/writepath/expected.txt is the
// capture from redis-server that pins them). Whoever delivers notifications (pub/sub) observes the
// keyspace (keyspace_observer.h); the keyspace asks only whether a class is enabled, so an event
// nobody enabled costs one test.
#pragma once

#include <cstdint>
#include <string_view>

namespace keel {

// Redis's NOTIFY_* bits, one per notify-keyspace-events character.
enum NotifyClass : uint32_t {
  kNotifyKeyspace = 1u << 0,  // K: publish on __keyspace@<db>__:<key>
  kNotifyKeyevent = 1u << 1,  // E: publish on __keyevent@<db>__:<event>
  kNotifyGeneric = 1u << 2,   // g: del, expire, rename_from, copy_to, ...
  kNotifyString = 1u << 3,    // $
  kNotifyList = 1u << 4,      // l
  kNotifySet = 1u << 5,       // s
  kNotifyHash = 1u << 6,      // h
  kNotifyZset = 1u << 7,      // z
  kNotifyExpired = 1u << 8,   // x
  kNotifyEvicted = 1u << 9,   // e
  kNotifyStream = 1u << 10,   // t
  kNotifyKeyMiss = 1u << 11,  // m: a read lookup that found nothing
  kNotifyLoaded = 1u << 12,   // modules only, never from a flag character
  kNotifyModule = 1u << 13,   // d
  kNotifyNew = 1u << 14,      // n: a key was created
};

// "A": every type and event class but n and m.
inline constexpr uint32_t kNotifyAll = kNotifyGeneric | kNotifyString | kNotifyList | kNotifySet |
                                       kNotifyHash | kNotifyZset | kNotifyExpired | kNotifyEvicted |
                                       kNotifyStream | kNotifyModule;

// The NotifyClass bits of a notify-keyspace-events value ("KEA", "Ex", ...). The text must
// already be valid (the configuration checks it); unknown characters are ignored.
uint32_t NotifyClassesFromFlags(std::string_view flags);

// The flag character of one class bit ('g', '$', ...), or 0.
char NotifyClassLetter(uint32_t type_class);

// What a write announces: an event name in a class. A null event (class 0) announces nothing.
struct KeyEvent {
  uint32_t type_class = 0;
  std::string_view name;
};

// The events of the generic and string families, named as Redis names them.
namespace events {
inline constexpr KeyEvent kNone{};
inline constexpr KeyEvent kSet{kNotifyString, "set"};
inline constexpr KeyEvent kAppend{kNotifyString, "append"};
inline constexpr KeyEvent kSetrange{kNotifyString, "setrange"};
inline constexpr KeyEvent kIncrby{kNotifyString, "incrby"};
inline constexpr KeyEvent kIncrbyfloat{kNotifyString, "incrbyfloat"};
inline constexpr KeyEvent kSetbit{kNotifyString, "setbit"};  // SETBIT, BITFIELD
inline constexpr KeyEvent kPfadd{kNotifyString, "pfadd"};
inline constexpr KeyEvent kDel{kNotifyGeneric, "del"};
inline constexpr KeyEvent kExpire{kNotifyGeneric, "expire"};
inline constexpr KeyEvent kPersist{kNotifyGeneric, "persist"};
inline constexpr KeyEvent kRenameFrom{kNotifyGeneric, "rename_from"};
inline constexpr KeyEvent kRenameTo{kNotifyGeneric, "rename_to"};
inline constexpr KeyEvent kMoveFrom{kNotifyGeneric, "move_from"};
inline constexpr KeyEvent kMoveTo{kNotifyGeneric, "move_to"};
inline constexpr KeyEvent kCopyTo{kNotifyGeneric, "copy_to"};
inline constexpr KeyEvent kRestore{kNotifyGeneric, "restore"};
inline constexpr KeyEvent kExpired{kNotifyExpired, "expired"};
// Hash fields past their TTL (class h, as Redis 7.4 announces them).
inline constexpr KeyEvent kHexpired{kNotifyHash, "hexpired"};
inline constexpr KeyEvent kEvicted{kNotifyEvicted, "evicted"};
inline constexpr KeyEvent kNew{kNotifyNew, "new"};
inline constexpr KeyEvent kKeyMiss{kNotifyKeyMiss, "keymiss"};
}  // namespace events

}  // namespace keel
