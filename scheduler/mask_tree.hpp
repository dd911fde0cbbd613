// A fixed-length sequence of 64-bit masks in an OR segment tree: the first position at or after
// `from` whose mask shares a bit with a query is found in O(log n), a mask is changed in
// O(log n). The cycle keeps one per queue over `pending_index`, a bit per gang size, so that a
// walk passes the waiting gangs whose reason it need not report (issue 49, docs/scheduler.md
// "Deep queues"); MinTree is its sibling over smallest GPU requests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace t9k::scheduler {

class MaskTree {
 public:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  // Room for n positions, every mask 0 until set.
  void reset(std::size_t n) {
    cap_ = 1;
    while (cap_ < n) cap_ *= 2;
    t_.assign(2 * cap_, 0);
  }
  std::size_t capacity() const { return cap_; }

  // Sets a leaf without updating its ancestors (a bulk load; rebuild() afterwards).
  void load(std::size_t i, std::uint64_t m) { t_[cap_ + i] = m; }
  void rebuild() {
    for (std::size_t k = cap_ - 1; k >= 1; --k) t_[k] = t_[2 * k] | t_[2 * k + 1];
  }

  void set(std::size_t i, std::uint64_t m) {
    std::size_t k = cap_ + i;
    if (t_[k] == m) return;
    t_[k] = m;
    for (k >>= 1; k >= 1; k >>= 1) {
      const std::uint64_t u = t_[2 * k] | t_[2 * k + 1];
      if (t_[k] == u) break;  // the ancestors above already hold the right union
      t_[k] = u;
    }
  }
  std::uint64_t at(std::size_t i) const { return t_[cap_ + i]; }

  // The first position >= from whose mask shares a bit with q, kNone when there is none.
  std::size_t first_any(std::size_t from, std::uint64_t q) const {
    if (from >= cap_ || q == 0) return kNone;
    std::size_t k = cap_ + from;
    if ((t_[k] & q) == 0) {
      // Up until a right sibling (the positions just after those below k) holds one.
      for (;;) {
        if (k == 1) return kNone;
        if ((k & 1) == 0 && (t_[k + 1] & q) != 0) {
          ++k;
          break;
        }
        k >>= 1;
      }
      while (k < cap_) {  // down to its first such leaf
        k <<= 1;
        if ((t_[k] & q) == 0) ++k;
      }
    }
    return k - cap_;
  }

 private:
  std::size_t cap_ = 0;
  std::vector<std::uint64_t> t_;  // 2 * cap_; node 1 is the root, leaves at cap_ + i
};

}  // namespace t9k::scheduler
