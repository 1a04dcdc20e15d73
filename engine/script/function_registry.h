// The libraries of functions and the functions they register (Redis 7.0's functionsLibCtx in
// functions.c): which libraries exist, which function names they claim, and the rules between
// them (library and function names, collisions, joining one set of libraries into another).
//
// The registry knows nothing of Lua: a function is a name, flags, an optional description and
// the library it belongs to; the interpreter keeps the callable under the library's id
// (function_lua.h), and a library's release hook drops it there when the library goes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

class FunctionLibrary;

struct FunctionInfo {
  std::string name;
  std::optional<std::string> description;
  uint32_t flags = 0;  // ScriptFlag bits (script_flags.h)
  const FunctionLibrary* library = nullptr;
};

class FunctionLibrary {
 public:
  // Called once when the library is destroyed, with its id (the interpreter forgets its
  // functions).
  using ReleaseHook = std::function<void(uint64_t id)>;

  FunctionLibrary(uint64_t id, std::string name, std::string code, ReleaseHook release)
      : id_(id), name_(std::move(name)), code_(std::move(code)), release_(std::move(release)) {}
  ~FunctionLibrary() {
    if (release_) release_(id_);
  }
  FunctionLibrary(const FunctionLibrary&) = delete;
  FunctionLibrary& operator=(const FunctionLibrary&) = delete;

  uint64_t id() const { return id_; }
  const std::string& name() const { return name_; }
  // The whole text given to FUNCTION LOAD, shebang included (FUNCTION LIST WITHCODE, DUMP, RDB).
  const std::string& code() const { return code_; }
  // By name, case-sensitive within a library (Redis's libraryFunctionDictType).
  const std::map<std::string, FunctionInfo>& functions() const { return functions_; }

  // redis.register_function's checks and insertion: "" or Redis's error message (no code).
  std::string AddFunction(std::string_view name, std::optional<std::string> description,
                          uint32_t flags);

 private:
  uint64_t id_;
  std::string name_;
  std::string code_;
  ReleaseHook release_;
  std::map<std::string, FunctionInfo> functions_;
};

// What a library's shebang line says (Redis's functionExtractLibMetaData).
struct LibraryMetadata {
  std::string engine;  // "lua", as written
  std::string name;
  size_t shebang_bytes = 0;  // the first line, without its newline: the code starts there
};

// Reads the "#!<engine> name=<name>" line of `code`. Returns "" or Redis's error message.
std::string ExtractLibraryMetadata(std::string_view code, LibraryMetadata* metadata);

// Letters, digits and underscores, at least one (Redis's functionsVerifyName).
bool IsValidFunctionName(std::string_view name);

// Redis's functionsLibCtx: libraries by name (case-sensitive) and their functions by name
// (case-insensitive, across libraries: FCALL finds "F" as "f").
class FunctionRegistry {
 public:
  FunctionRegistry() = default;
  FunctionRegistry(const FunctionRegistry&) = delete;
  FunctionRegistry& operator=(const FunctionRegistry&) = delete;

  const FunctionLibrary* FindLibrary(std::string_view name) const;
  const FunctionInfo* FindFunction(std::string_view name) const;
  // In library-name order (Redis's is its hash table's; any order is one Redis could give).
  const std::map<std::string, std::unique_ptr<FunctionLibrary>, std::less<>>& libraries() const {
    return libraries_;
  }
  size_t library_count() const { return libraries_.size(); }
  size_t function_count() const { return functions_.size(); }

  // The first function of `library` whose name is taken here, or nullptr.
  const FunctionInfo* FirstCollision(const FunctionLibrary& library) const;
  // Adds a library whose name is free and whose functions collide with none here.
  void Link(std::unique_ptr<FunctionLibrary> library);
  // Takes the library `name` out (nullptr when there is none).
  std::unique_ptr<FunctionLibrary> Unlink(std::string_view name);
  // Forgets every library.
  void Clear();

  // Moves every library of `source` here (Redis's libraryJoin): a library whose name exists
  // here fails the join ("Library x already exists") unless `replace`, which drops the old one;
  // then a function name taken here fails it ("Function f already exists"). On failure nothing
  // changed here and `source` keeps its libraries. Returns "" or the error message.
  std::string Join(FunctionRegistry& source, bool replace);

 private:
  std::map<std::string, std::unique_ptr<FunctionLibrary>, std::less<>> libraries_;
  std::map<std::string, const FunctionInfo*> functions_;  // by lowercase name
};

}  // namespace keel
