// Shared<T>: a value its copies share until one of them is edited (copy on write). For the pod
// templates of job specs: a trace's or a generator's jobs are copies that differ in name and
// size, not in template, and a template inline in every stored job (424 bytes, with its
// containers, resource lists and strings about 900) was a tenth of the backlog's peak (issue 49).
// Reading is through const access only; edit() gives a value of this copy's own.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace t9k::model {

template <class T>
class Shared {
 public:
  Shared() = default;                                        // reads as a default T
  Shared(T value) : b_(new Block{{1}, std::move(value)}) {}  // NOLINT: implicit, as T

  // Copies share; a default or moved-from one holds nothing and reads as the default T, so
  // making, moving and dropping one touches no count (runs in parallel threads share the
  // default value, and a count on it would be one cache line they all write).
  Shared(const Shared& o) noexcept : b_(o.b_) {
    if (b_) b_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  Shared(Shared&& o) noexcept : b_(std::exchange(o.b_, nullptr)) {}
  Shared& operator=(const Shared& o) noexcept {
    Shared copy(o);
    std::swap(b_, copy.b_);
    return *this;
  }
  Shared& operator=(Shared&& o) noexcept {
    Shared taken(std::move(o));
    std::swap(b_, taken.b_);
    return *this;
  }
  ~Shared() { release(); }

  // A default value for a part nearly every job leaves at its default (a run mode): no
  // allocation. Any other value is one of its own.
  static Shared or_default(T value) {
    if (value == default_value()) return Shared();
    return Shared(std::move(value));
  }

  Shared& operator=(T value) {
    Shared made(std::move(value));
    std::swap(b_, made.b_);
    return *this;
  }

  const T& operator*() const { return b_ ? b_->value : default_value(); }
  const T* operator->() const { return &**this; }
  const T* get() const { return &**this; }

  // This copy's value, to change: copied first when another copy shares it (or made from the
  // default). A value held by this copy alone gains a sharer only by copying this copy, which
  // no other thread may do while it is being edited (as for any value).
  T& edit() {
    if (!b_ || b_->refs.load(std::memory_order_acquire) != 1) *this = Shared(T(**this));
    return b_->value;
  }
  // Whether the two share one value (tests, and the trace reader's reuse); two defaults do.
  bool shares_with(const Shared& o) const { return b_ == o.b_; }

  bool operator==(const Shared& o) const { return b_ == o.b_ || **this == *o; }

 private:
  // The count beside the value, in one block: a pointer, not std::shared_ptr's two (8 bytes in
  // every pod's owner references and every job's run mode and template; issue 49).
  struct Block {
    std::atomic<std::size_t> refs;
    T value;
  };
  static const T& default_value() {
    static const T value{};
    return value;
  }
  void release() noexcept {
    if (b_ && b_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete b_;
    b_ = nullptr;
  }
  Block* b_ = nullptr;  // null: the default value
};

// The last few distinct values made, most recently used first: a value equal to one of them is
// shared with it (a trace's jobs' pod templates; the training records' behaviours, which differ
// in their run times only, taken out first). `Held` is what is kept and handed out: a Shared<T>,
// or T itself when its copies already share (model::Text: the scheduler's pending messages,
// the same few for thousands of waiting jobs).
template <class T, std::size_t kKept = 8, class Held = Shared<T>>
class RecentValues {
 public:
  // `v`, or an equal value kept, shared.
  Held share(T v) { return found(v) ? kept_.front() : keep(Held(std::move(v))); }
  // The same for a value held already: kept as it is when new (no copy of the value).
  Held share(Held v) requires(!std::is_same_v<Held, T>) {
    return found(value_of(v)) ? kept_.front() : keep(std::move(v));
  }

 private:
  // Whether an equal value is kept; it is moved to the front if so.
  bool found(const T& v) {
    const auto it =
        std::find_if(kept_.begin(), kept_.end(), [&](const Held& k) { return value_of(k) == v; });
    if (it == kept_.end()) return false;
    std::rotate(kept_.begin(), it, it + 1);
    return true;
  }
  Held keep(Held v) {
    if (kept_.size() == kKept) kept_.pop_back();
    kept_.insert(kept_.begin(), std::move(v));
    return kept_.front();
  }
  static const T& value_of(const Shared<T>& k) { return *k; }
  static const T& value_of(const T& k) { return k; }
  std::vector<Held> kept_;
};

}  // namespace t9k::model
