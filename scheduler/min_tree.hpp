// A fixed-length sequence of int64 values in a min segment tree: the first position at or after
// `from` whose value is at most x is found in O(log n), a value is changed in O(log n). The cycle
// keeps one per queue over `pending_index` (issue 49, docs/scheduler.md "Deep queues"), so that a
// walk jumps over runs of groups that certainly change nothing instead of looking at each.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace t9k::scheduler {

class MinTree {
 public:
  static constexpr std::int64_t kHighest = std::numeric_limits<std::int64_t>::max();
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  // Room for n positions, every value kHighest until set.
  void reset(std::size_t n) {
    cap_ = 1;
    while (cap_ < n) cap_ *= 2;
    t_.assign(2 * cap_, kHighest);
  }
  std::size_t capacity() const { return cap_; }

  // Sets a leaf without updating its ancestors (a bulk load; rebuild() afterwards).
  void load(std::size_t i, std::int64_t v) { t_[cap_ + i] = v; }
  void rebuild() {
    for (std::size_t k = cap_ - 1; k >= 1; --k) t_[k] = std::min(t_[2 * k], t_[2 * k + 1]);
  }

  void set(std::size_t i, std::int64_t v) {
    std::size_t k = cap_ + i;
    t_[k] = v;
    for (k >>= 1; k >= 1; k >>= 1) {
      const std::int64_t m = std::min(t_[2 * k], t_[2 * k + 1]);
      if (t_[k] == m) break;  // the ancestors above already hold the right minimum
      t_[k] = m;
    }
  }

  // The first position >= from whose value is <= x, kNone when there is none.
  std::size_t first_at_most(std::size_t from, std::int64_t x) const {
    if (from >= cap_) return kNone;
    std::size_t k = cap_ + from;
    if (t_[k] > x) {
      // Up until a right sibling (the positions just after those below k) holds one.
      for (;;) {
        if (k == 1) return kNone;
        if ((k & 1) == 0 && t_[k + 1] <= x) {
          ++k;
          break;
        }
        k >>= 1;
      }
      while (k < cap_) {  // down to its first such leaf
        k <<= 1;
        if (t_[k] > x) ++k;
      }
    }
    return k - cap_;
  }

 private:
  std::size_t cap_ = 0;
  std::vector<std::int64_t> t_;  // 2 * cap_; node 1 is the root, leaves at cap_ + i
};

}  // namespace t9k::scheduler
