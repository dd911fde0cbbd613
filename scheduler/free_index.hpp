// The snapshot's free-GPU index: present nodes ordered by (free GPU milli, node id), walked up
// from a request or down from the top by every whole-GPU placement (docs/scheduler.md "Scale").
//
// A node's free GPUs take few distinct values (0, 1000, ..., 8000 on an 8-GPU fleet), so the
// index is a short sorted list of levels, each a bitset of node ids with a summary word per 64
// words: moving a node is two bit flips instead of an ordered-set erase and insert (a node
// allocation each), and a walk reads words in id order instead of chasing tree nodes. The order
// is exactly that of std::set<std::pair<std::int64_t, NodeId>>, which this replaced.
//
// Each level also counts its nodes by free CPU, in whole CPUs (the last bucket holds everything
// above), so a walk can bound the CPU term of the bin-pack score over the nodes it has yet to
// reach: least_cpu() gives a lower bound of their free CPU among those with room for a request.
#pragma once

#include <array>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>
#include <vector>

namespace t9k::scheduler {

class FreeGpuIndex {
 public:
  using Id = std::int32_t;
  using Key = std::pair<std::int64_t, Id>;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // `cpu`: the node's free CPU (milli) while it is at this key; erase() is given the same.
  void insert(std::int64_t free, Id n, std::int64_t cpu = 0) {
    grow(n);
    Level& l = level(free);
    if (l.set(n)) {
      ++l.count;
      ++size_;
      l.add_cpu(cpu_bucket(cpu), 1);
    }
  }
  void erase(std::int64_t free, Id n, std::int64_t cpu = 0) {
    const auto it = find_level(free);
    if (it == levels_.end() || it->key != free) return;
    if (static_cast<std::size_t>(n) >= words_ * 64 || !it->reset(n)) return;
    --it->count;
    --size_;
    it->add_cpu(cpu_bucket(cpu), -1);
    // Levels are few; an empty one stays for reuse unless values have scattered.
    if (it->count == 0 && levels_.size() > kMaxEmptyKept) levels_.erase(it);
  }

  // Ascending (key, id) from the first key >= `from`.
  class Cursor {
   public:
    bool valid() const { return idx_ && level_ < idx_->levels_.size(); }
    Key operator*() const { return {idx_->levels_[level_].key, node_}; }
    void next() {
      node_ = idx_->levels_[level_].next_at_or_after(node_ + 1);
      settle();
    }

    Cursor() = default;  // invalid until assigned

   private:
    friend class FreeGpuIndex;
    Cursor(const FreeGpuIndex* idx, std::size_t level) : idx_(idx), level_(level) {
      if (valid()) node_ = idx_->levels_[level_].next_at_or_after(0);
      settle();
    }
    void settle() {
      while (node_ < 0) {
        if (++level_ >= idx_->levels_.size()) return;
        node_ = idx_->levels_[level_].next_at_or_after(0);
      }
    }
    const FreeGpuIndex* idx_ = nullptr;
    std::size_t level_ = 0;
    Id node_ = -1;
  };
  // Descending (key, id) from the largest key.
  class ReverseCursor {
   public:
    bool valid() const { return level_ >= 0; }
    Key operator*() const { return {idx_->levels_[static_cast<std::size_t>(level_)].key, node_}; }
    void next() {
      node_ = node_ == 0
                  ? -1
                  : idx_->levels_[static_cast<std::size_t>(level_)].prev_at_or_before(node_ - 1);
      settle();
    }

   private:
    friend class FreeGpuIndex;
    explicit ReverseCursor(const FreeGpuIndex* idx)
        : idx_(idx), level_(static_cast<std::ptrdiff_t>(idx->levels_.size()) - 1) {
      if (valid()) node_ = top();
      settle();
    }
    Id top() const {
      return idx_->levels_[static_cast<std::size_t>(level_)].prev_at_or_before(
          static_cast<Id>(idx_->words_ * 64) - 1);
    }
    void settle() {
      while (node_ < 0) {
        if (--level_ < 0) return;
        node_ = top();
      }
    }
    const FreeGpuIndex* idx_;
    std::ptrdiff_t level_;
    Id node_ = -1;
  };

  // A lower bound of the free CPU (milli) of every node at a key >= `from` whose free CPU is at
  // least `need`; INT64_MAX when there is none.
  std::int64_t least_cpu(std::int64_t from, std::int64_t need) const {
    std::int64_t least = std::numeric_limits<std::int64_t>::max();
    const std::size_t first = cpu_bucket(need);
    for (auto it = find_level(from); it != levels_.end(); ++it) {
      const std::size_t b = it->first_cpu_bucket(first);
      if (b == kCpuBuckets) continue;
      // Bucket b holds [b, b + 1) CPUs (the last: everything above); in the request's own bucket
      // only the request itself is certain.
      least = std::min(least, b == first ? std::max<std::int64_t>(need, 0)
                                         : static_cast<std::int64_t>(b) * kCpuWidth);
      if (b == first) break;  // nothing can be lower
    }
    return least;
  }

  // The node ids in [from, to) at a key >= `free`, ascending: the nodes with room for a request
  // in id order, a word of the levels at or above `free` OR-ed at a time (a rack's nodes with
  // room without looking at each of its nodes).
  class RoomCursor {
   public:
    // The next id, or -1 once there is none.
    Id next() {
      while (bits_ == 0) {
        if (++w_ * 64 >= end_) return -1;
        load();
      }
      const auto n = w_ * 64 + static_cast<std::size_t>(std::countr_zero(bits_));
      bits_ &= bits_ - 1;
      return n < end_ ? static_cast<Id>(n) : -1;
    }

   private:
    friend class FreeGpuIndex;
    RoomCursor(const FreeGpuIndex* idx, std::int64_t free, Id from, Id to)
        : idx_(idx),
          first_(static_cast<std::size_t>(idx->find_level(free) - idx->levels_.begin())) {
      if (first_ == idx->levels_.size() || from < 0 || from >= to) return;
      end_ = std::min(static_cast<std::size_t>(to), idx->words_ * 64);
      w_ = static_cast<std::size_t>(from) >> 6;
      if (w_ * 64 >= end_) return;
      load();
      bits_ &= ~std::uint64_t{0} << (static_cast<unsigned>(from) & 63);
    }
    void load() {
      bits_ = 0;
      for (std::size_t l = first_; l < idx_->levels_.size(); ++l)
        bits_ |= idx_->levels_[l].words[w_];
    }
    const FreeGpuIndex* idx_;
    std::size_t first_;  // the first level at or above the request
    std::size_t w_ = 0;
    std::size_t end_ = 0;  // one past the last id, within the words
    std::uint64_t bits_ = 0;
  };
  RoomCursor at_least(std::int64_t free, Id from, Id to) const {
    return RoomCursor(this, free, from, to);
  }

  Cursor lower_bound(std::int64_t free) const {
    return Cursor(this, static_cast<std::size_t>(find_level(free) - levels_.begin()));
  }
  Cursor begin_cursor() const { return Cursor(this, 0); }
  ReverseCursor rbegin_cursor() const { return ReverseCursor(this); }

  // A standard forward iterator over (key, id), for tests and copies.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Key;
    using difference_type = std::ptrdiff_t;
    using pointer = const Key*;
    using reference = Key;
    const_iterator() = default;
    explicit const_iterator(Cursor c) : c_(c), end_(!c.valid()) { load(); }
    Key operator*() const { return cur_; }
    const Key* operator->() const { return &cur_; }
    const_iterator& operator++() {
      c_.next();
      end_ = !c_.valid();
      load();
      return *this;
    }
    const_iterator operator++(int) {
      auto t = *this;
      ++*this;
      return t;
    }
    bool operator==(const const_iterator& o) const {
      return end_ == o.end_ && (end_ || cur_ == o.cur_);
    }

   private:
    void load() {
      if (!end_) cur_ = *c_;
    }
    Cursor c_;
    bool end_ = true;
    Key cur_{};
  };
  const_iterator begin() const { return empty() ? end() : const_iterator(begin_cursor()); }
  const_iterator end() const { return const_iterator(); }

 private:
  static constexpr std::size_t kMaxEmptyKept = 64;
  static constexpr std::size_t kCpuBuckets = 256;
  static constexpr std::int64_t kCpuWidth = 1000;  // milli: one CPU per bucket
  static std::size_t cpu_bucket(std::int64_t cpu) {
    if (cpu <= 0) return 0;
    return static_cast<std::size_t>(std::min<std::int64_t>(cpu / kCpuWidth, kCpuBuckets - 1));
  }

  struct Level {
    std::int64_t key = 0;
    std::size_t count = 0;
    std::array<std::int32_t, kCpuBuckets> cpu_count{};       // nodes by free-CPU bucket
    std::array<std::uint64_t, kCpuBuckets / 64> cpu_mask{};  // bit b: cpu_count[b] > 0

    void add_cpu(std::size_t b, std::int32_t delta) {
      const std::int32_t c = cpu_count[b] += delta;
      const std::uint64_t bit = std::uint64_t{1} << (b & 63);
      if (c > 0)
        cpu_mask[b >> 6] |= bit;
      else
        cpu_mask[b >> 6] &= ~bit;
    }
    // The first non-empty bucket >= b, or kCpuBuckets.
    std::size_t first_cpu_bucket(std::size_t b) const {
      std::size_t w = b >> 6;
      std::uint64_t m = cpu_mask[w] & (~std::uint64_t{0} << (b & 63));
      while (m == 0) {
        if (++w == cpu_mask.size()) return kCpuBuckets;
        m = cpu_mask[w];
      }
      return w * 64 + static_cast<std::size_t>(std::countr_zero(m));
    }
    std::vector<std::uint64_t> words;    // bit i of word w: node 64w + i
    std::vector<std::uint64_t> summary;  // bit i of summary word s: words[64s + i] != 0

    bool set(Id n) {
      const auto w = static_cast<std::size_t>(n) >> 6;
      const std::uint64_t b = std::uint64_t{1} << (static_cast<unsigned>(n) & 63);
      if (words[w] & b) return false;
      words[w] |= b;
      summary[w >> 6] |= std::uint64_t{1} << (w & 63);
      return true;
    }
    bool reset(Id n) {
      const auto w = static_cast<std::size_t>(n) >> 6;
      const std::uint64_t b = std::uint64_t{1} << (static_cast<unsigned>(n) & 63);
      if (!(words[w] & b)) return false;
      words[w] &= ~b;
      if (words[w] == 0) summary[w >> 6] &= ~(std::uint64_t{1} << (w & 63));
      return true;
    }
    // The first member >= n, or -1.
    Id next_at_or_after(Id n) const {
      if (count == 0) return -1;
      auto w = static_cast<std::size_t>(n) >> 6;
      if (w >= words.size()) return -1;
      const std::uint64_t here = words[w] & (~std::uint64_t{0} << (static_cast<unsigned>(n) & 63));
      if (here) return static_cast<Id>(w * 64 + static_cast<std::size_t>(std::countr_zero(here)));
      // The next non-empty word after w, through the summary.
      std::size_t s = (w + 1) >> 6;
      if (s >= summary.size()) return -1;
      const unsigned from = static_cast<unsigned>((w + 1) & 63);
      std::uint64_t m = from == 0 ? summary[s] : summary[s] & (~std::uint64_t{0} << from);
      while (m == 0) {
        if (++s >= summary.size()) return -1;
        m = summary[s];
      }
      w = s * 64 + static_cast<std::size_t>(std::countr_zero(m));
      return static_cast<Id>(w * 64 + static_cast<std::size_t>(std::countr_zero(words[w])));
    }
    // The last member <= n, or -1.
    Id prev_at_or_before(Id n) const {
      if (count == 0 || n < 0) return -1;
      auto w = static_cast<std::size_t>(n) >> 6;
      unsigned bit = static_cast<unsigned>(n) & 63;
      if (w >= words.size()) {
        w = words.size() - 1;
        bit = 63;
      }
      const std::uint64_t here =
          words[w] & (bit == 63 ? ~std::uint64_t{0} : ((std::uint64_t{1} << (bit + 1)) - 1));
      if (here)
        return static_cast<Id>(w * 64 + 63 - static_cast<std::size_t>(std::countl_zero(here)));
      if (w == 0) return -1;
      std::size_t s = (w - 1) >> 6;
      const unsigned upto = static_cast<unsigned>((w - 1) & 63);
      std::uint64_t m =
          summary[s] & (upto == 63 ? ~std::uint64_t{0} : ((std::uint64_t{1} << (upto + 1)) - 1));
      while (m == 0) {
        if (s == 0) return -1;
        m = summary[--s];
      }
      w = s * 64 + 63 - static_cast<std::size_t>(std::countl_zero(m));
      return static_cast<Id>(w * 64 + 63 - static_cast<std::size_t>(std::countl_zero(words[w])));
    }
  };

  std::vector<Level>::const_iterator find_level(std::int64_t key) const {
    return std::lower_bound(levels_.begin(), levels_.end(), key,
                            [](const Level& l, std::int64_t k) { return l.key < k; });
  }
  std::vector<Level>::iterator find_level(std::int64_t key) {
    return std::lower_bound(levels_.begin(), levels_.end(), key,
                            [](const Level& l, std::int64_t k) { return l.key < k; });
  }
  Level& level(std::int64_t key) {
    auto it = find_level(key);
    if (it != levels_.end() && it->key == key) return *it;
    Level l;
    l.key = key;
    l.words.assign(words_, 0);
    l.summary.assign((words_ + 63) / 64, 0);
    return *levels_.insert(it, std::move(l));
  }
  // Room for node id n in every level (ids are dense and grow as nodes are added).
  void grow(Id n) {
    const auto need = static_cast<std::size_t>(n) / 64 + 1;
    if (need <= words_) return;
    words_ = std::max(need, words_ * 2);
    for (auto& l : levels_) {
      l.words.resize(words_, 0);
      l.summary.resize((words_ + 63) / 64, 0);
    }
  }

  std::vector<Level> levels_;
  std::size_t words_ = 0;  // per level
  std::size_t size_ = 0;
};

}  // namespace t9k::scheduler
