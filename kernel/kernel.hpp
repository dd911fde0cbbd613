// The simulation kernel: one explicit object owning the clock and the event queue (no
// singletons). It knows time and events, nothing about Kubernetes.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kernel/event_queue.hpp"
#include "kernel/time.hpp"

namespace t9k::kernel {

// Handles every event of the kinds routed to it (Kernel::route): a model owns its kinds and
// receives their (kind, key, arg) instead of a closure, so the model's state stays in the model.
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void handle(const DispatchedEvent& event) = 0;
};

class Kernel {
 public:
  using Observer = std::function<void(const DispatchedEvent&)>;

  SimTime now() const { return now_; }

  // Scheduling in the past is a logic error (throws std::logic_error). An empty callback is
  // allowed: the event only counts (and goes to its kind's handler, if one is routed).
  EventHandle schedule_at(SimTime t, Phase phase, EventKind kind, EventKey key, Callback cb);
  EventHandle schedule_in(SimDuration d, Phase phase, EventKind kind, EventKey key, Callback cb) {
    return schedule_at(now_ + d, phase, kind, key, std::move(cb));
  }
  // An event without a callback: when it fires, the handler routed for its kind gets it.
  // Throws std::logic_error when no handler is routed for `kind`.
  EventHandle post_at(SimTime t, Phase phase, EventKind kind, EventKey key, EventArg arg = 0);
  EventHandle post_in(SimDuration d, Phase phase, EventKind kind, EventKey key, EventArg arg = 0) {
    return post_at(now_ + d, phase, kind, key, arg);
  }
  // Every posted event of `kind` goes to `handler`: one handler per kind, routed before the first
  // post. Throws std::logic_error when the kind already has another handler.
  void route(EventKind kind, EventHandler* handler);
  bool cancel(EventHandle h) { return queue_.cancel(h); }
  bool pending(EventHandle h) const { return queue_.pending(h); }

  // Dispatches the earliest event. Returns false when there is none.
  bool step();
  // Dispatches every event with time <= horizon (including ones scheduled meanwhile), then sets
  // the clock to the horizon. Stops early if stop() is called. Returns events dispatched.
  std::uint64_t run_until(SimTime horizon);
  // Runs until the queue is empty or stop() is called.
  std::uint64_t run() { return run_until(kTimeMax); }
  void stop() { stop_requested_ = true; }

  // Observers see every dispatched event, in order, before its callback runs.
  void add_observer(Observer obs) { observers_.push_back(std::move(obs)); }

  // 64-bit hash folded over (time, phase, kind, key) of every dispatched event: two runs with the
  // same fingerprint dispatched the same events in the same order.
  std::uint64_t fingerprint() const { return fingerprint_; }
  std::uint64_t dispatched() const { return dispatched_; }
  std::size_t pending_events() const { return queue_.size(); }
  SimTime next_event_time() { return queue_.next_time(); }

 private:
  void dispatch_top();

  EventQueue queue_;
  SimTime now_{};
  std::uint64_t fingerprint_ = 0x7439'6B73'696D'0001ULL;  // arbitrary fixed start
  std::uint64_t dispatched_ = 0;
  bool stop_requested_ = false;
  std::vector<Observer> observers_;
  std::vector<EventHandler*> routes_;  // by kind
  DispatchedEvent info_{};
  Callback cb_;
};

// Formats a fingerprint as 16 lower-case hex digits.
std::string format_fingerprint(std::uint64_t fp);

}  // namespace t9k::kernel
