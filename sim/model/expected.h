// Expected: a reply as the reference model predicts it.
//
// Usually an exact RESP value. Where the model deliberately allows a range (DBSIZE counts keys
// that expired but were not reclaimed yet, which depends on when the engine reclaims them) it is
// an integer within [min, max].
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/resp/resp_value.h"

namespace keel::model {

struct Expected {
  RespValue value;
  bool integer_range = false;
  int64_t min = 0;
  int64_t max = 0;

  bool Matches(const RespValue& actual) const;
  std::string ToString() const;
};

// Builders, in the client's protocol where it matters (2 or 3).
Expected Ok();
Expected Simple(std::string_view text);
Expected Error(std::string_view text);
Expected Integer(int64_t value);
Expected IntegerRange(int64_t min, int64_t max);
Expected Bulk(std::string_view text);
Expected NullBulk(int resp);  // RESP2 $-1, RESP3 _
// A map of `pairs` (key, value, key, value, ...): RESP3 %n, RESP2 a flat array.
Expected Map(std::vector<RespValue> pairs, int resp);

}  // namespace keel::model
