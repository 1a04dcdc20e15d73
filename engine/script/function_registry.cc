#include "engine/script/function_registry.h"

#include <vector>

#include "engine/base/assert.h"
#include "engine/resp/request_parser.h"

namespace keel {
namespace {

std::string Lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && Lowercase(text.substr(0, prefix.size())) == prefix;
}

}  // namespace

std::string FunctionLibrary::AddFunction(std::string_view name,
                                         std::optional<std::string> description, uint32_t flags) {
  // Redis 7.0.15 words a bad function name as a bad library name (functionLibCreateFunction).
  if (!IsValidFunctionName(name)) {
    return "Library names can only contain letters, numbers, or underscores(_) and must be at "
           "least one character long";
  }
  if (functions_.contains(std::string(name))) return "Function already exists in the library";
  FunctionInfo info{.name = std::string(name),
                    .description = std::move(description),
                    .flags = flags,
                    .library = this};
  functions_.emplace(info.name, std::move(info));
  return {};
}

bool IsValidFunctionName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string ExtractLibraryMetadata(std::string_view code, LibraryMetadata* metadata) {
  if (!code.starts_with("#!")) return "Missing library metadata";
  // Redis reads the code as a C string: the line ends at the first newline before any NUL.
  const std::string_view text = code.substr(0, code.find('\0'));
  const size_t end = text.find('\n');
  if (end == std::string_view::npos) return "Invalid library metadata";
  std::string line(text.substr(0, end));
  std::vector<std::string_view> parts;
  if (!SplitArgsInPlace(line.data(), line.size(), &parts) || parts.empty()) {
    return "Invalid library metadata";
  }
  std::string name;
  bool named = false;
  for (size_t i = 1; i < parts.size(); i++) {
    if (StartsWithIgnoreCase(parts[i], "name=")) {
      if (named) return "Invalid metadata value, name argument was given multiple times";
      name = std::string(parts[i].substr(5));
      named = true;
      continue;
    }
    return "Invalid metadata value given: " + std::string(parts[i]);
  }
  if (!named) return "Library name was not given";
  metadata->engine = parts[0].size() > 2 ? std::string(parts[0].substr(2)) : std::string();
  metadata->name = std::move(name);
  metadata->shebang_bytes = end;
  return {};
}

const FunctionLibrary* FunctionRegistry::FindLibrary(std::string_view name) const {
  auto it = libraries_.find(name);
  return it == libraries_.end() ? nullptr : it->second.get();
}

const FunctionInfo* FunctionRegistry::FindFunction(std::string_view name) const {
  auto it = functions_.find(Lowercase(name));
  return it == functions_.end() ? nullptr : it->second;
}

const FunctionInfo* FunctionRegistry::FirstCollision(const FunctionLibrary& library) const {
  for (const auto& [name, info] : library.functions()) {
    if (FindFunction(name) != nullptr) return &info;
  }
  return nullptr;
}

void FunctionRegistry::Link(std::unique_ptr<FunctionLibrary> library) {
  KEEL_ASSERT(FindLibrary(library->name()) == nullptr);
  for (const auto& [name, info] : library->functions()) {
    // Two names of one library that differ only in case: the first one claims the name.
    functions_.emplace(Lowercase(name), &info);
  }
  std::string name = library->name();
  libraries_.emplace(std::move(name), std::move(library));
}

std::unique_ptr<FunctionLibrary> FunctionRegistry::Unlink(std::string_view name) {
  auto it = libraries_.find(name);
  if (it == libraries_.end()) return nullptr;
  std::unique_ptr<FunctionLibrary> library = std::move(it->second);
  libraries_.erase(it);
  for (const auto& [function_name, info] : library->functions()) {
    auto found = functions_.find(Lowercase(function_name));
    if (found != functions_.end() && found->second == &info) functions_.erase(found);
  }
  return library;
}

void FunctionRegistry::Clear() {
  functions_.clear();
  libraries_.clear();
}

std::string FunctionRegistry::Join(FunctionRegistry& source, bool replace) {
  std::vector<std::unique_ptr<FunctionLibrary>> replaced;
  std::string error;
  for (const auto& [name, library] : source.libraries_) {
    if (FindLibrary(name) == nullptr) continue;
    if (!replace) {
      error = "Library " + name + " already exists";
      break;
    }
    replaced.push_back(Unlink(name));
  }
  if (error.empty()) {
    for (const auto& [name, library] : source.libraries_) {
      if (const FunctionInfo* collision = FirstCollision(*library)) {
        error = "Function " + collision->name + " already exists";
        break;
      }
    }
  }
  if (!error.empty()) {
    for (auto& library : replaced) Link(std::move(library));
    return error;
  }
  // Libraries of `source` may not collide with each other either: Redis built them in one
  // context, which refused that already.
  std::vector<std::unique_ptr<FunctionLibrary>> moved;
  for (auto& [name, library] : source.libraries_) moved.push_back(std::move(library));
  source.Clear();
  for (auto& library : moved) Link(std::move(library));
  return {};
}

}  // namespace keel
