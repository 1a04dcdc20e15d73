#include "engine/script/functions.h"

#include "engine/base/assert.h"
#include "engine/db/rdb_file.h"
#include "engine/db/rdb_format.h"
#include "engine/script/function_lua.h"

namespace keel {
namespace {

bool EqualsIgnoreCaseAscii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

Functions::Functions(MemoryAccountant& memory, Clock& clock, Rand48& rand48, LuaHost& host)
    : memory_(memory), clock_(clock), rand48_(rand48), host_(host) {}

Functions::~Functions() {
  // The libraries go first: each forgets its functions in the interpreter.
  registry_.Clear();
  vm_.reset();
}

bool Functions::EnsureVm() {
  if (vm_ != nullptr) return true;
  auto vm = std::make_unique<LuaVm>(memory_, rand48_, host_, LuaVmKind::kFunctions);
  if (!vm->ok()) return false;
  vm_ = std::move(vm);
  return true;
}

std::string Functions::Create(std::string_view code, bool replace, int64_t timeout_ms,
                              FunctionRegistry& target, std::string* library_name) {
  LibraryMetadata metadata;
  std::string error = ExtractLibraryMetadata(code, &metadata);
  if (!error.empty()) return error;
  if (!IsValidFunctionName(metadata.name)) {
    return "Library names can only contain letters, numbers, or underscores(_) and must be at "
           "least one character long";
  }
  // Redis's engines are looked up case-insensitively; Lua is the only one.
  if (!EqualsIgnoreCaseAscii(metadata.engine, "lua")) {
    return "Engine '" + metadata.engine + "' not found";
  }
  if (target.FindLibrary(metadata.name) != nullptr && !replace) {
    return "Library '" + metadata.name + "' already exists";
  }
  if (!EnsureVm()) return "not enough memory";
  // The old library stays out while the new one is made, so that the new one may register the
  // names it had; it comes back if the new one fails.
  std::unique_ptr<FunctionLibrary> old = target.Unlink(metadata.name);
  LuaVm* vm = vm_.get();
  auto library =
      std::make_unique<FunctionLibrary>(next_library_id_++, metadata.name, std::string(code),
                                        [vm](uint64_t id) { ForgetLibraryFunctions(*vm, id); });
  error = LoadLibraryCode(*vm_, *library, code.substr(metadata.shebang_bytes), clock_, timeout_ms);
  if (error.empty() && library->functions().empty()) error = "No functions registered";
  if (error.empty()) {
    if (const FunctionInfo* collision = target.FirstCollision(*library)) {
      error = "Function " + collision->name + " already exists";
    }
  }
  if (!error.empty()) {
    library.reset();
    if (old != nullptr) target.Link(std::move(old));
    return error;
  }
  *library_name = library->name();
  target.Link(std::move(library));
  return {};
}

std::string Functions::Load(std::string_view code, bool replace, int64_t timeout_ms,
                            std::string* library_name) {
  std::string error = Create(code, replace, timeout_ms, registry_, library_name);
  if (error.empty()) return {};
  return "ERR " + error;
}

bool Functions::Delete(std::string_view library_name) {
  return registry_.Unlink(library_name) != nullptr;
}

void Functions::Flush() { registry_.Clear(); }

size_t Functions::library_bytes() const {
  size_t bytes = 0;
  for (const auto& [name, library] : registry_.libraries()) {
    bytes += name.size() + library->code().size();
    for (const auto& [function_name, function] : library->functions()) {
      bytes += function_name.size() + (function.description ? function.description->size() : 0);
    }
  }
  return bytes;
}

std::vector<std::string> Functions::LibraryCodes() const {
  std::vector<std::string> codes;
  for (const auto& [name, library] : registry_.libraries()) codes.push_back(library->code());
  return codes;
}

std::string Functions::Dump(bool compress) const {
  std::string payload;
  for (const auto& [name, library] : registry_.libraries()) {
    payload.push_back(static_cast<char>(rdb::kOpFunction2));
    rdb::WriteString(&payload, library->code(), compress);
  }
  rdb::AppendPayloadFooter(&payload);
  return payload;
}

std::string Functions::Restore(std::string_view payload, RestorePolicy policy,
                               bool verify_checksum) {
  if (!rdb::PayloadFooterValid(payload, verify_checksum)) {
    return "ERR DUMP payload version or checksum are wrong";
  }
  FunctionRegistry restored;
  // Redis reads from the whole payload, footer included, while more than the footer's bytes are
  // left: a library whose length reaches into the footer reads the footer's bytes as its own.
  rdb::Reader reader(payload);
  std::string error;
  while (reader.remaining() > rdb::kPayloadFooterBytes) {
    uint8_t opcode = 0;
    if (!reader.ReadByte(&opcode)) {
      error = "can not read data type";
      break;
    }
    if (opcode != rdb::kOpFunction2 && opcode != rdb::kOpFunctionPreGa) {
      error = "given type is not a function";
      break;
    }
    std::string code;
    error = rdb::ReadFunctionLibrary(reader, opcode, &code);
    if (!error.empty()) break;
    std::string name;
    error = Create(code, /*replace=*/false, /*timeout_ms=*/0, restored, &name);
    if (!error.empty()) break;
  }
  if (error.empty()) {
    if (policy == RestorePolicy::kFlush) {
      registry_.Clear();
      error = registry_.Join(restored, /*replace=*/false);
      KEEL_ASSERT(error.empty());
    } else {
      error = registry_.Join(restored, policy == RestorePolicy::kReplace);
    }
  }
  if (!error.empty()) return "ERR " + error;
  return {};
}

std::string Functions::LoadFromFile(std::span<const std::string> codes, bool replace) {
  for (const std::string& code : codes) {
    std::string name;
    std::string error = Create(code, replace, /*timeout_ms=*/0, registry_, &name);
    if (!error.empty()) return error;
  }
  return {};
}

}  // namespace keel
