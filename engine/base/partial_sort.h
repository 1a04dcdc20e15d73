// PartialQuicksort: Bentley and McIlroy's quicksort ("Engineering a Sort Function", 1993, the
// BSD libc qsort) that only sorts the partitions overlapping a range of ranks, as Redis's
// pqsort.c does for GEORADIUS ... COUNT. It is not stable: elements that compare equal end up in
// an order fixed by the algorithm's pivots and swaps, and a reply that lists them must list them
// in that order, so the steps here are those of the reference, one for one (median of three, of
// nine past 40 elements, insertion sort under 7, three-way partitioning with the equal elements
// swapped to both ends and back), on elements rather than bytes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

namespace keel {

namespace partial_sort_internal {

// `compare(a, b)` is <0, 0 or >0.
template <typename T, typename Compare>
T* MedianOfThree(T* a, T* b, T* c, Compare& compare) {
  if (compare(*a, *b) < 0) {
    if (compare(*b, *c) < 0) return b;
    return compare(*a, *c) < 0 ? c : a;
  }
  if (compare(*b, *c) > 0) return b;
  return compare(*a, *c) < 0 ? a : c;
}

// Exchanges the `count` elements from `a` with those from `b`, pairwise in order.
template <typename T>
void SwapRuns(T* a, T* b, ptrdiff_t count) {
  for (ptrdiff_t i = 0; i < count; i++) std::swap(a[i], b[i]);
}

// Sorts the `n` elements from `a` as far as ranks [first, last] (pointers into the whole array)
// need.
template <typename T, typename Compare>
void Sort(T* a, size_t n, const T* first, const T* last, Compare& compare) {
  for (;;) {
    if (n < 7) {
      for (T* m = a + 1; m < a + n; m++) {
        for (T* l = m; l > a && compare(*(l - 1), *l) > 0; l--) std::swap(*l, *(l - 1));
      }
      return;
    }
    T* pivot = a + n / 2;
    if (n > 7) {
      T* low = a;
      T* high = a + n - 1;
      if (n > 40) {
        const size_t d = n / 8;
        low = MedianOfThree(low, low + d, low + 2 * d, compare);
        pivot = MedianOfThree(pivot - d, pivot, pivot + d, compare);
        high = MedianOfThree(high - 2 * d, high - d, high, compare);
      }
      pivot = MedianOfThree(low, pivot, high, compare);
    }
    std::swap(*a, *pivot);
    // [a+1, pa): equal to the pivot; [pa, pb): less; (pc, pd]: greater; (pd, end): equal.
    T* pa = a + 1;
    T* pb = a + 1;
    T* pc = a + n - 1;
    T* pd = a + n - 1;
    for (;;) {
      int order = 0;
      while (pb <= pc && (order = compare(*pb, *a)) <= 0) {
        if (order == 0) std::swap(*pa++, *pb);
        pb++;
      }
      while (pb <= pc && (order = compare(*pc, *a)) >= 0) {
        if (order == 0) std::swap(*pc, *pd--);
        pc--;
      }
      if (pb > pc) break;
      std::swap(*pb++, *pc--);
    }
    T* end = a + n;
    ptrdiff_t run = std::min(pa - a, pb - pa);
    SwapRuns(a, pb - run, run);
    run = std::min(pd - pc, end - pd - 1);
    SwapRuns(pb, end - run, run);
    // Recurse into the smaller side and loop on the greater one, each only when it overlaps
    // the wanted ranks.
    auto overlaps = [&](const T* from, ptrdiff_t count) {
      return !(last < from || first >= from + count);
    };
    if (pb - pa > 1 && overlaps(a, pb - pa))
      Sort(a, static_cast<size_t>(pb - pa), first, last, compare);
    const ptrdiff_t greater = pd - pc;
    if (greater <= 1) return;
    a = end - greater;
    n = static_cast<size_t>(greater);
    if (!overlaps(a, greater)) return;
  }
}

}  // namespace partial_sort_internal

// Puts the elements of ranks [first, last] of `data` (n elements) where a full sort by
// `compare` (returning <0, 0 or >0) would put them, as Redis's pqsort(data, n, ..., first, last)
// does; the other elements end in some order.
template <typename T, typename Compare>
void PartialQuicksort(T* data, size_t n, size_t first, size_t last, Compare compare) {
  if (n == 0) return;
  partial_sort_internal::Sort(data, n, data + first, data + last, compare);
}

}  // namespace keel
