#include "engine/registry/registry.h"

#include <cstdio>
#include <cstring>

#include "engine/base/assert.h"
#include "engine/base/numbers.h"

namespace keel {

uint64_t Registry::HashName(std::string_view name) {
  // Case folding by OR-ing 0x20 into every byte: it lowercases letters and maps the other bytes
  // of command names consistently, which is all a hash needs (Find compares exactly afterwards).
  // Eight bytes per step, with no copy of the name.
  uint64_t hash = 0xcbf29ce484222325ull ^ name.size();
  size_t i = 0;
  for (; i + 8 <= name.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, name.data() + i, 8);
    hash = (hash ^ (word | 0x2020202020202020ull)) * 0x9e3779b97f4a7c15ull;
    hash ^= hash >> 29;
  }
  uint64_t tail = 0;
  for (size_t shift = 0; i < name.size(); i++, shift += 8) {
    tail |= static_cast<uint64_t>(static_cast<unsigned char>(name[i]) | 0x20) << shift;
  }
  hash = (hash ^ tail) * 0x9e3779b97f4a7c15ull;
  return hash ^ (hash >> 32);
}

void Registry::Add(std::span<const CommandDef> defs) {
  for (const CommandDef& def : defs) {
    auto spec = std::make_unique<CommandSpec>();
    std::string error = ParseCommandDef(def, spec.get());
    if (!error.empty()) {
      std::fprintf(stderr, "keel: bad command definition '%.*s': %s\n",
                   static_cast<int>(def.name.size()), def.name.data(), error.c_str());
      KEEL_ASSERT(error.empty());
    }
    Insert(std::move(spec));
  }
}

void Registry::Insert(std::unique_ptr<CommandSpec> spec) {
  spec->id = static_cast<uint32_t>(all_.size());
  all_.push_back(spec.get());
  const size_t bar = spec->full_name.find('|');
  if (bar != std::string::npos) {
    const std::string parent_name = spec->full_name.substr(0, bar);
    CommandSpec* parent = nullptr;
    for (auto& owned : owned_) {
      if (owned->full_name == parent_name) parent = owned.get();
    }
    KEEL_ASSERT(parent != nullptr);
    KEEL_ASSERT(parent->FindSubcommand(spec->name) == nullptr);
    spec->parent = parent;
    parent->subcommands.push_back(std::move(spec));
    return;
  }
  KEEL_ASSERT(Find(spec->name) == nullptr);
  const CommandSpec* inserted = spec.get();
  ordered_.push_back(inserted);
  owned_.push_back(std::move(spec));
  // The table doubles when it would pass half full; otherwise the command takes the next free
  // slot (rebuilding on every insertion cost the server's start about 2 million instructions).
  if (table_.size() < ordered_.size() * 2) {
    Rehash();
    return;
  }
  const size_t mask = table_.size() - 1;
  size_t index = HashName(inserted->name) & mask;
  while (table_[index] != nullptr) index = (index + 1) & mask;
  table_[index] = inserted;
}

void Registry::Rehash() {
  size_t capacity = 16;
  while (capacity < ordered_.size() * 2) capacity *= 2;
  table_.assign(capacity, nullptr);
  for (const CommandSpec* spec : ordered_) {
    size_t index = HashName(spec->name) & (capacity - 1);
    while (table_[index] != nullptr) index = (index + 1) & (capacity - 1);
    table_[index] = spec;
  }
}

const CommandSpec* Registry::Find(std::string_view name) const {
  if (table_.empty()) return nullptr;
  const size_t mask = table_.size() - 1;
  size_t index = HashName(name) & mask;
  while (const CommandSpec* spec = table_[index]) {
    if (EqualsIgnoreCase(spec->name, name)) return spec;
    index = (index + 1) & mask;
  }
  return nullptr;
}

const CommandSpec* Registry::Resolve(std::span<const std::string_view> args,
                                     bool* unknown_subcommand) const {
  *unknown_subcommand = false;
  KEEL_DASSERT(!args.empty());
  const CommandSpec* spec = Find(args[0]);
  if (spec == nullptr || !spec->is_container() || args.size() < 2) return spec;
  const CommandSpec* sub = spec->FindSubcommand(args[1]);
  if (sub == nullptr) *unknown_subcommand = true;
  return sub;
}

const CommandSpec* Registry::FindByFullName(std::string_view full_name) const {
  const size_t bar = full_name.find('|');
  if (bar == std::string_view::npos) return Find(full_name);
  const CommandSpec* parent = Find(full_name.substr(0, bar));
  if (parent == nullptr) return nullptr;
  return parent->FindSubcommand(full_name.substr(bar + 1));
}

}  // namespace keel
