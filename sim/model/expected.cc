#include "sim/model/expected.h"

#include "engine/base/numbers.h"

namespace keel::model {

bool Expected::Matches(const RespValue& actual) const {
  if (!integer_range) return actual == value;
  return actual.type == RespType::kInteger && actual.integer >= min && actual.integer <= max;
}

std::string Expected::ToString() const {
  if (!integer_range) return value.ToString();
  return "an integer in [" + Int64ToString(min) + ", " + Int64ToString(max) + "]";
}

Expected Ok() { return Simple("OK"); }

Expected Simple(std::string_view text) { return Expected{RespValue::Simple(text)}; }

Expected Error(std::string_view text) { return Expected{RespValue::Error(text)}; }

Expected Integer(int64_t value) { return Expected{RespValue::Integer(value)}; }

Expected IntegerRange(int64_t min, int64_t max) {
  Expected expected;
  expected.integer_range = true;
  expected.min = min;
  expected.max = max;
  return expected;
}

Expected Bulk(std::string_view text) { return Expected{RespValue::Bulk(text)}; }

Expected NullBulk(int resp) {
  RespValue value;
  value.type = resp == 3 ? RespType::kNull : RespType::kNullBulk;
  return Expected{value};
}

Expected Map(std::vector<RespValue> pairs, int resp) {
  RespValue value = RespValue::Array(std::move(pairs));
  if (resp == 3) value.type = RespType::kMap;
  return Expected{value};
}

}  // namespace keel::model
