#include "kernel/kernel.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "kernel/hash.hpp"

namespace t9k::kernel {

EventHandle Kernel::schedule_at(SimTime t, Phase phase, EventKind kind, EventKey key, Callback cb) {
  if (t < now_) {
    throw std::logic_error(fmt::format("event scheduled in the past: {} < now {}",
                                       format_seconds(t), format_seconds(now_)));
  }
  return queue_.push(t, phase, kind, key, std::move(cb));
}

EventHandle Kernel::post_at(SimTime t, Phase phase, EventKind kind, EventKey key, EventArg arg) {
  if (kind >= routes_.size() || routes_[kind] == nullptr) {
    throw std::logic_error(fmt::format("event kind {} posted with no handler routed for it", kind));
  }
  if (t < now_) {
    throw std::logic_error(fmt::format("event scheduled in the past: {} < now {}",
                                       format_seconds(t), format_seconds(now_)));
  }
  return queue_.push(t, phase, kind, key, nullptr, arg);
}

void Kernel::route(EventKind kind, EventHandler* handler) {
  if (handler == nullptr) throw std::invalid_argument("route: no handler");
  if (kind > 4096) throw std::length_error("event kinds above 4096 cannot be routed");
  if (routes_.size() <= kind) routes_.resize(static_cast<std::size_t>(kind) + 1, nullptr);
  if (routes_[kind] && routes_[kind] != handler) {
    throw std::logic_error(fmt::format("event kind {} already has a handler", kind));
  }
  routes_[kind] = handler;
}

void Kernel::dispatch_top() {
  queue_.pop(info_, cb_);
  now_ = info_.time;
  fingerprint_ =
      hash_combine(fingerprint_, static_cast<std::uint64_t>(info_.time.time_since_epoch().count()));
  fingerprint_ =
      hash_combine(fingerprint_, (static_cast<std::uint64_t>(info_.phase) << 32) | info_.kind);
  fingerprint_ = hash_combine(fingerprint_, info_.key);
  ++dispatched_;
  for (const auto& obs : observers_) obs(info_);
  // Move out first: the callback may schedule events, which may reuse cb_.
  Callback cb = std::move(cb_);
  cb_ = nullptr;
  if (cb) {
    cb();
  } else if (info_.kind < routes_.size() && routes_[info_.kind]) {
    const DispatchedEvent event = info_;
    routes_[info_.kind]->handle(event);
  }
}

bool Kernel::step() {
  if (queue_.empty()) return false;
  dispatch_top();
  return true;
}

std::uint64_t Kernel::run_until(SimTime horizon) {
  stop_requested_ = false;
  std::uint64_t n = 0;
  while (!stop_requested_ && !queue_.empty() && queue_.next_time() <= horizon) {
    dispatch_top();
    ++n;
  }
  if (!stop_requested_ && horizon != kTimeMax && now_ < horizon) now_ = horizon;
  return n;
}

std::string format_fingerprint(std::uint64_t fp) { return fmt::format("{:016x}", fp); }

}  // namespace t9k::kernel
