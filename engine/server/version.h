// Version strings.
#pragma once

#include <string_view>

namespace keel {

// The Redis version whose behaviour Keel reproduces; reported as redis_version and by HELLO so
// that client libraries enable the features they would enable against that Redis.
inline constexpr std::string_view kRedisCompatibleVersion = "7.0.15";
inline constexpr std::string_view kKeelVersion = "0.1.0";

}  // namespace keel
