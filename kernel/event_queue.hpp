// The event queue: a total order (time, phase, sequence), O(log n) schedule, O(1) cancel.
//
// A radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) on event time, exploiting that simulated
// time never goes backwards: an entry sits in the bucket of the highest bit in which its time
// differs from the current minimum, so a push is an append and a pop rescans one bucket, each
// entry moving down at most 64 times in its life. Events at the current minimum time live in a
// small binary heap ordered by (phase, sequence). The callback sits in a slot table so buckets
// move 16-byte keys only. Cancel is handle-based and lazy: it empties the slot; the entry is
// dropped when it reaches the current-time heap. Same-instant, same-phase events dispatch FIFO.
//
// Precondition: a push is never earlier than the last popped event (std::logic_error otherwise;
// the Kernel refuses to schedule in the past anyway). Limits (std::length_error): 16 phases,
// 2^36 events scheduled per queue, 2^24 events pending at once.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kernel/time.hpp"

namespace t9k::kernel {

// Lower phases dispatch first at the same instant (e.g. pod state changes before reconciles,
// reconciles before scheduling cycles). The world defines its own phase values.
using Phase = std::uint8_t;
// A small integer naming the kind of event, and a key naming what it is about (a job or pod id).
// Both are folded into the run's fingerprint; neither is interpreted by the kernel.
using EventKind = std::uint32_t;
using EventKey = std::uint64_t;
// A small payload handed back to the event's handler (an id, or an index into the handler's own
// table). Unlike the kind and key it is not part of the fingerprint.
using EventArg = std::uint64_t;

using Callback = std::function<void()>;

// Identifies a scheduled event so it can be cancelled. Stale handles (already dispatched or
// cancelled, slot since reused) are detected by the generation and ignored.
struct EventHandle {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

// What an observer sees for every dispatched event.
struct DispatchedEvent {
  SimTime time;
  Phase phase;
  std::uint64_t sequence;
  EventKind kind;
  EventKey key;
  EventArg arg;
};

class EventQueue {
 public:
  EventHandle push(SimTime time, Phase phase, EventKind kind, EventKey key, Callback cb,
                   EventArg arg = 0);
  // Returns true if the event was pending and is now cancelled.
  bool cancel(EventHandle h);
  bool pending(EventHandle h) const;

  // Number of live (not cancelled) events.
  std::size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }
  // Time of the earliest live event; kTimeMax when empty. Drops cancelled entries at the top.
  SimTime next_time();

  // Removes the earliest live event, filling `info` and `cb`. Precondition: !empty().
  void pop(DispatchedEvent& info, Callback& cb);

  std::uint64_t scheduled_total() const { return next_seq_; }

 private:
  struct Entry {
    std::int64_t time;
    // phase (4 bits) | sequence (36 bits) | slot (24 bits): one comparison orders phase, then
    // FIFO; the slot bits never decide since sequences are unique.
    std::uint64_t order;
  };
  struct Slot {
    Callback cb;
    EventKind kind = 0;
    EventKey key = 0;
    EventArg arg = 0;
    std::uint32_t generation = 0;
    bool live = false;
  };

  static constexpr int kBuckets = 65;

  static std::uint64_t biased(std::int64_t t) {
    return static_cast<std::uint64_t>(t) ^ (std::uint64_t{1} << 63);
  }
  int bucket_of(std::int64_t t) const;
  void place(const Entry& e);
  void release_slot(std::uint32_t slot);
  bool live_entry(const Entry& e) const;
  // Makes current_ hold the live events at the minimum time; false when the queue is empty.
  bool refill();
  void rebase(std::int64_t new_min);
  void push_current(const Entry& e);
  void pop_current();

  std::vector<Entry> buckets_[kBuckets];
  std::vector<Entry> current_;      // binary min-heap on order, all at time last_
  std::int64_t last_ = INT64_MIN;   // the current minimum time (bucket origin)
  std::int64_t floor_ = INT64_MIN;  // time of the last popped event: pushes may not go below
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t next_seq_ = 0;
  std::size_t live_ = 0;
};

}  // namespace t9k::kernel
