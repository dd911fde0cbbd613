// An append-only sequence of int64 values kept in a max segment tree, so that the positions
// whose value is at least x are found in increasing position order at O(log n) per hit, and a
// value is changed in O(log n). CycleState uses it for the nodes of a preemption trial's bonus
// (docs/scheduler.md "Scale"): a pod asking for more GPUs than most of them have skips them
// without a filter call each.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace t9k::scheduler {

class MaxTree {
 public:
  static constexpr std::int64_t kLowest = std::numeric_limits<std::int64_t>::min();

  std::size_t size() const { return size_; }

  // Appends a value at position size().
  void push(std::int64_t v) {
    if (size_ == cap_) grow();
    set(size_++, v);
  }

  void set(std::size_t i, std::int64_t v) {
    std::size_t k = cap_ + i;
    t_[k] = v;
    for (k >>= 1; k >= 1; k >>= 1) {
      const std::int64_t m = std::max(t_[2 * k], t_[2 * k + 1]);
      if (t_[k] == m) break;  // the ancestors above already hold the right maximum
      t_[k] = m;
    }
  }

  // Empties the sequence in O(size): only the leaves in use and their ancestors are reset.
  void clear() {
    if (size_ == 0) return;
    for (std::size_t lo = cap_, hi = cap_ + size_ - 1; lo >= 1; lo >>= 1, hi >>= 1) {
      std::fill(t_.begin() + static_cast<std::ptrdiff_t>(lo),
                t_.begin() + static_cast<std::ptrdiff_t>(hi) + 1, kLowest);
      if (lo == 1) break;
    }
    size_ = 0;
  }

  // Calls f(position) for each position whose value is >= x, in increasing order, until f
  // returns true.
  template <class F>
  void each_at_least(std::int64_t x, F&& f) const {
    if (size_ == 0) return;
    visit(1, x, f);
  }

 private:
  template <class F>
  bool visit(std::size_t k, std::int64_t x, F& f) const {
    if (t_[k] < x) return false;
    if (k >= cap_) return k - cap_ < size_ && f(k - cap_);  // unused leaves hold kLowest
    return visit(2 * k, x, f) || visit(2 * k + 1, x, f);
  }

  void grow() {
    const std::size_t cap = cap_ == 0 ? 64 : 2 * cap_;
    std::vector<std::int64_t> t(2 * cap, kLowest);
    for (std::size_t i = 0; i < size_; ++i) t[cap + i] = t_[cap_ + i];
    for (std::size_t k = cap - 1; k >= 1; --k) t[k] = std::max(t[2 * k], t[2 * k + 1]);
    t_.swap(t);
    cap_ = cap;
  }

  std::size_t cap_ = 0;
  std::size_t size_ = 0;
  std::vector<std::int64_t> t_;  // 2 * cap_; node 1 is the root, leaves at cap_ + i
};

}  // namespace t9k::scheduler
