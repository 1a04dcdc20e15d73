// Status and Result: how environment operations report failure without exceptions.
//
// The engine is built with -fno-exceptions (see docs/STYLE.md). Client errors (wrong type, bad
// arguments) are not Statuses: they are RESP error replies. A Status carries environment failures
// (a busy port, a full disk, a refused allocation) and is [[nodiscard]] so that none is dropped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "engine/base/assert.h"

namespace keel {

enum class StatusCode : uint8_t {
  kOk = 0,
  kWouldBlock,        // non-blocking operation could not progress now; retry on readiness
  kClosed,            // the peer closed its side in order (EOF)
  kReset,             // the connection failed (reset, broken pipe, any other socket error)
  kNotFound,          // no such file, directory or handle
  kAlreadyExists,     // target exists and the operation does not overwrite
  kAddressInUse,      // a listener could not bind: the port is taken
  kPermissionDenied,  // the OS refused access
  kNoSpace,           // the disk or the quota is full
  kOutOfMemory,       // the memory resource refused an allocation
  kInvalidArgument,   // the request was malformed (bad address, bad path)
  kIoError,           // any other I/O failure; the message says which
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  explicit Status(StatusCode code) : code_(code) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "AddressInUse: bind 127.0.0.1:6379" or "OK".
  std::string ToString() const;

  // Marks a status as deliberately ignored (documented at the call site).
  void IgnoreError() const {}

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains its absence. Read the value only after ok().
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    KEEL_ASSERT(!status_.ok());
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() {
    KEEL_ASSERT(ok());
    return *value_;
  }
  const T& value() const {
    KEEL_ASSERT(ok());
    return *value_;
  }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace keel
