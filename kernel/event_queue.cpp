#include "kernel/event_queue.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <utility>

namespace t9k::kernel {

namespace {
constexpr int kSlotBits = 24;
constexpr int kSeqBits = 36;
constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;
constexpr std::uint64_t kSeqMask = (std::uint64_t{1} << kSeqBits) - 1;
constexpr int kPhaseShift = kSlotBits + kSeqBits;

std::uint32_t slot_of(std::uint64_t order) { return static_cast<std::uint32_t>(order & kSlotMask); }

// Min-heap on order for std::push_heap / pop_heap.
struct LaterOrder {
  template <class E>
  bool operator()(const E& a, const E& b) const {
    return a.order > b.order;
  }
};
}  // namespace

int EventQueue::bucket_of(std::int64_t t) const {
  const std::uint64_t diff = biased(t) ^ biased(last_);
  return diff == 0 ? 0 : 64 - __builtin_clzll(diff);
}

void EventQueue::push_current(const Entry& e) {
  current_.push_back(e);
  std::push_heap(current_.begin(), current_.end(), LaterOrder{});
}

void EventQueue::pop_current() {
  std::pop_heap(current_.begin(), current_.end(), LaterOrder{});
  current_.pop_back();
}

void EventQueue::place(const Entry& e) {
  const int b = bucket_of(e.time);
  if (b == 0) {
    push_current(e);
  } else {
    buckets_[b].push_back(e);
  }
}

EventHandle EventQueue::push(SimTime time, Phase phase, EventKind kind, EventKey key, Callback cb,
                             EventArg arg) {
  const std::int64_t t = time.time_since_epoch().count();
  if (t < floor_) throw std::logic_error("event pushed earlier than the last popped event");
  if (next_seq_ > kSeqMask) throw std::length_error("event sequence space (2^36) exhausted");
  if (phase >= 16) throw std::length_error("event phase must be below 16");
  std::uint32_t slot = 0;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    if (slots_.size() > kSlotMask) throw std::length_error("more than 2^24 pending events");
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.cb = std::move(cb);
  s.kind = kind;
  s.key = key;
  s.arg = arg;
  s.live = true;
  const std::uint64_t order =
      (static_cast<std::uint64_t>(phase) << kPhaseShift) | (next_seq_++ << kSlotBits) | slot;
  // A peek (next_time) may have moved the origin past `t` without popping; re-origin then.
  if (t < last_) rebase(t);
  place(Entry{t, order});
  ++live_;
  return EventHandle{slot, s.generation};
}

bool EventQueue::cancel(EventHandle h) {
  if (!pending(h)) return false;
  Slot& s = slots_[h.slot];
  s.live = false;
  s.cb = nullptr;
  --live_;
  return true;
}

bool EventQueue::pending(EventHandle h) const {
  return h.valid() && h.slot < slots_.size() && slots_[h.slot].generation == h.generation &&
         slots_[h.slot].live;
}

void EventQueue::release_slot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  ++s.generation;
  s.live = false;
  free_slots_.push_back(slot);
}

bool EventQueue::live_entry(const Entry& e) const { return slots_[slot_of(e.order)].live; }

void EventQueue::rebase(std::int64_t new_min) {
  // Rare: only after a peek moved the origin forward and an earlier event then arrived.
  std::vector<Entry> all;
  all.swap(current_);
  for (auto& b : buckets_) {
    all.insert(all.end(), b.begin(), b.end());
    b.clear();
  }
  last_ = new_min;
  for (const Entry& e : all) place(e);
}

bool EventQueue::refill() {
  for (;;) {
    while (!current_.empty() && !live_entry(current_.front())) {
      release_slot(slot_of(current_.front().order));
      pop_current();
    }
    if (!current_.empty()) return true;
    int b = 1;
    while (b < kBuckets && buckets_[b].empty()) ++b;
    if (b == kBuckets) return false;
    std::vector<Entry>& bucket = buckets_[b];
    // Cancelled entries move along with the rest (checking them here would touch the slot table
    // at random); they are dropped when they reach the current heap.
    std::int64_t min_t = INT64_MAX;
    for (const Entry& e : bucket) min_t = std::min(min_t, e.time);
    last_ = min_t;
    // Every entry of bucket b now lands in a lower bucket (or the current heap).
    std::vector<Entry> moving;
    moving.swap(bucket);
    for (const Entry& e : moving) place(e);
    moving.clear();
    if (bucket.capacity() == 0) moving.swap(bucket);  // keep the allocation for reuse
  }
}

SimTime EventQueue::next_time() { return refill() ? SimTime{SimDuration{last_}} : kTimeMax; }

void EventQueue::pop(DispatchedEvent& info, Callback& cb) {
  const bool any = refill();
  assert(any);
  (void)any;
  const Entry top = current_.front();
  pop_current();
  const std::uint32_t slot = slot_of(top.order);
  Slot& s = slots_[slot];
  info.time = SimTime{SimDuration{top.time}};
  info.phase = static_cast<Phase>(top.order >> kPhaseShift);
  info.sequence = (top.order >> kSlotBits) & kSeqMask;
  info.kind = s.kind;
  info.key = s.key;
  info.arg = s.arg;
  cb = std::move(s.cb);
  s.cb = nullptr;
  --live_;
  release_slot(slot);
  floor_ = top.time;
}

}  // namespace t9k::kernel
