#include "engine/db/entry.h"

#include "engine/base/numbers.h"

namespace keel {

std::string_view ObjectEncodingName(ObjectEncoding encoding) {
  switch (encoding) {
    case ObjectEncoding::kRaw:
      return "raw";
    case ObjectEncoding::kInt:
      return "int";
    case ObjectEncoding::kEmbstr:
      return "embstr";
    case ObjectEncoding::kHashtable:
      return "hashtable";
    case ObjectEncoding::kListpack:
      return "listpack";
    case ObjectEncoding::kQuicklist:
      return "quicklist";
    case ObjectEncoding::kIntset:
      return "intset";
    case ObjectEncoding::kSkiplist:
      return "skiplist";
    case ObjectEncoding::kStream:
      return "stream";
  }
  return "unknown";
}

ObjectEncoding StringEncodingFor(std::string_view value) {
  // Redis's tryObjectEncoding: a value of at most 20 bytes that string2l accepts is stored as an
  // integer; otherwise at most 44 bytes (OBJ_ENCODING_EMBSTR_SIZE_LIMIT) are embedded.
  int64_t number = 0;
  if (value.size() <= 20 && ParseStrictInt64(value, &number)) return ObjectEncoding::kInt;
  return value.size() <= 44 ? ObjectEncoding::kEmbstr : ObjectEncoding::kRaw;
}

}  // namespace keel
