// PartialQuicksort: the wanted ranks hold what a full sort puts there, whatever the input; and
// equal elements come out in the order the algorithm's swaps leave them, which GEORADIUS ...
// COUNT replies show (conformance/cases/geo.txt compares them with redis-server's).
#include "engine/base/partial_sort.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace keel {
namespace {

int Compare(int a, int b) { return a > b ? 1 : a == b ? 0 : -1; }

RC_GTEST_PROP(PartialQuicksortTest, WantedRanksMatchAFullSort, (std::vector<int> values)) {
  for (int& value : values) value %= 8;  // many ties
  const size_t n = values.size();
  RC_PRE(n > 0);
  const size_t first = *rc::gen::inRange<size_t>(0, n);
  const size_t last = *rc::gen::inRange<size_t>(first, n);
  std::vector<int> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> partial = values;
  PartialQuicksort(partial.data(), n, first, last, Compare);
  for (size_t i = first; i <= last; i++) RC_ASSERT(partial[i] == sorted[i]);
  std::sort(partial.begin(), partial.end());
  RC_ASSERT(partial == sorted);  // a permutation
}

TEST(PartialQuicksortTest, SortsSmallRunsByInsertion) {
  std::vector<int> values{5, 3, 9, 1, 1, 0};
  PartialQuicksort(values.data(), values.size(), 0, 0, Compare);
  EXPECT_EQ(values, (std::vector<int>{0, 1, 1, 3, 5, 9}));
}

struct Tagged {
  int key;
  char tag;
};

TEST(PartialQuicksortTest, EqualElementsMoveAsTheReferenceMovesThem) {
  // Ten equal keys: the median of three picks the last as the pivot, which the partition swaps
  // to the front, and every other element is "equal" in place. Redis answers GEORADIUS ...
  // COUNT 3 over ten members at one point in this order (j b c: conformance/cases/geo.txt).
  std::vector<Tagged> values;
  for (char tag = 'a'; tag <= 'j'; tag++) values.push_back({0, tag});
  PartialQuicksort(values.data(), values.size(), 0, 2,
                   [](const Tagged& x, const Tagged& y) { return Compare(x.key, y.key); });
  std::string order;
  for (const Tagged& value : values) order += value.tag;
  EXPECT_EQ(order, "jbcdefghia");
}

}  // namespace
}  // namespace keel
