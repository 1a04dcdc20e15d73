#include "engine/base/status.h"

namespace keel {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kWouldBlock:
      return "WouldBlock";
    case StatusCode::kClosed:
      return "Closed";
    case StatusCode::kReset:
      return "Reset";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kAddressInUse:
      return "AddressInUse";
    case StatusCode::kPermissionDenied:
      return "PermissionDenied";
    case StatusCode::kNoSpace:
      return "NoSpace";
    case StatusCode::kOutOfMemory:
      return "OutOfMemory";
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kIoError:
      return "IoError";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  std::string text(StatusCodeName(code_));
  if (!message_.empty()) {
    text += ": ";
    text += message_;
  }
  return text;
}

}  // namespace keel
