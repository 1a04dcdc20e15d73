// RapidCheck generators for RESP values and RESP-shaped bytes, shared by the codec and reply
// builder tests (and usable by the simulator's property tests).
//
// Header-only: only test binaries (which link rapidcheck) include it. Generators that read their
// sub-generators with operator* must run inside a property or rc::gen::exec, as usual.
#pragma once

#include <rapidcheck.h>

#include <string>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/resp/resp_value.h"

namespace keel::testing {

inline rc::Gen<char> GenByte() { return rc::gen::cast<char>(rc::gen::inRange(0, 256)); }

// Any bytes, at most `size_max` of them.
inline rc::Gen<std::string> GenBytes(int size_max) {
  return rc::gen::resize(size_max, rc::gen::container<std::string>(GenByte()));
}

// The text of a simple string or error line: any bytes except CR and LF.
inline rc::Gen<std::string> GenLineText(int size_max) {
  return rc::gen::resize(size_max, rc::gen::container<std::string>(rc::gen::suchThat(
                                       GenByte(), [](char c) { return c != '\r' && c != '\n'; })));
}

// A double as a server prints it ("%.17g", with inf, -inf and nan spelled so).
inline rc::Gen<std::string> GenDoubleText() {
  return rc::gen::oneOf(rc::gen::element<std::string>("inf", "-inf", "nan", "0", "-0", "1.5"),
                        rc::gen::map(rc::gen::arbitrary<double>(), [](double value) {
                          char text[kDoubleTextMax];
                          return std::string(text, FormatDouble(value, text));
                        }));
}

inline rc::Gen<std::string> GenBigNumberText() {
  return rc::gen::exec([] {
    std::string text = *rc::gen::element<std::string>("", "-");
    text += *rc::gen::resize(
        40,
        rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::inRange<char>('0', '9' + 1))));
    return text;
  });
}

// Any RESP2/RESP3 value with aggregates nested at most `depth` levels. Texts hold what the type
// allows (a line for simple strings, any bytes for blobs, "fmt:" before verbatim text).
inline rc::Gen<RespValue> GenRespValue(int depth) {
  return rc::gen::exec([depth] {
    static const std::vector<RespType> kScalars = {
        RespType::kSimpleString, RespType::kError,     RespType::kInteger,   RespType::kBulkString,
        RespType::kNullBulk,     RespType::kNullArray, RespType::kNull,      RespType::kBoolean,
        RespType::kDouble,       RespType::kBigNumber, RespType::kBlobError, RespType::kVerbatim};
    static const std::vector<RespType> kAggregates = {
        RespType::kArray, RespType::kMap, RespType::kSet, RespType::kAttribute, RespType::kPush};
    RespValue value;
    if (depth > 0 && *rc::gen::inRange(0, 3) == 0) {
      value.type = *rc::gen::elementOf(kAggregates);
    } else {
      value.type = *rc::gen::elementOf(kScalars);
    }
    switch (value.type) {
      case RespType::kSimpleString:
      case RespType::kError:
        value.text = *GenLineText(30);
        break;
      case RespType::kInteger:
        value.integer = *rc::gen::arbitrary<int64_t>();
        break;
      case RespType::kBulkString:
      case RespType::kBlobError:
        value.text = *GenBytes(40);
        break;
      case RespType::kBoolean:
        value.integer = *rc::gen::inRange(0, 2);
        break;
      case RespType::kDouble:
        value.text = *GenDoubleText();
        break;
      case RespType::kBigNumber:
        value.text = *GenBigNumberText();
        break;
      case RespType::kVerbatim:
        value.text = *rc::gen::container<std::string>(3, GenByte()) + ":" + *GenBytes(30);
        break;
      case RespType::kMap:
      case RespType::kAttribute:
      case RespType::kArray:
      case RespType::kSet:
      case RespType::kPush: {
        const int count = *rc::gen::inRange(0, 4);
        const bool pairs = value.type == RespType::kMap || value.type == RespType::kAttribute;
        for (int i = 0; i < (pairs ? 2 * count : count); i++) {
          value.elements.push_back(*GenRespValue(depth - 1));
        }
        break;
      }
      case RespType::kNullBulk:
      case RespType::kNullArray:
      case RespType::kNull:
        break;
    }
    return value;
  });
}

// Bytes that are often, but not always, valid RESP: encodings of random values, the same with a
// few bytes changed, inserted or removed, and runs of protocol fragments.
inline rc::Gen<std::string> GenRespBytes() {
  return rc::gen::exec([] {
    const int kind = *rc::gen::inRange(0, 3);
    if (kind == 2) {
      static const std::vector<std::string> kTokens = {
          "*1\r\n",      "*2\r\n",   "%1\r\n",  "~1\r\n",
          ">1\r\n",      "|1\r\n",   "$1\r\n",  "$3\r\n",
          "$-1\r\n",     "*-1\r\n",  "_\r\n",   "#t\r\n",
          ",1.5\r\n",    ",inf\r\n", "(12\r\n", "=5\r\ntxt:x\r\n",
          "!1\r\nE\r\n", ":7\r\n",   "+OK\r\n", "-ERR x\r\n",
          "\r\n",        "\r",       "\n",      "x",
          "1",           "-",        "+",       "*",
          "$",           ":",        ",",       "#",
          "=",           "!",        "(",       "_",
          "%",           "~",        "|",       ">"};
      std::string bytes;
      const int count = *rc::gen::inRange(0, 20);
      for (int i = 0; i < count; i++) bytes += *rc::gen::elementOf(kTokens);
      return bytes;
    }
    std::string bytes = EncodeResp(*GenRespValue(2));
    if (kind == 1) {
      const int edits = *rc::gen::inRange(1, 4);
      for (int i = 0; i < edits; i++) {
        const size_t at = *rc::gen::inRange<size_t>(0, bytes.size() + 1);
        const int edit = *rc::gen::inRange(0, 3);
        if (edit == 0) {
          bytes.insert(at, 1, *GenByte());
        } else if (at < bytes.size()) {
          if (edit == 1) {
            bytes[at] = *GenByte();
          } else {
            bytes.erase(at, 1);
          }
        }
      }
    }
    return bytes;
  });
}

}  // namespace keel::testing
