// OptionalTime: a SimTime that may be unset, in 8 bytes where std::optional<SimTime> takes 16.
// The records a run keeps per job and per pod carry several (a pod's binding, start, finish and
// deletion; a job status's start, completion and deadline clock; the recorder's row), and the
// padding of std::optional was a visible share of a deep queue's memory (issue 49). Unset is the
// one value no clock reaches: the most negative count of microseconds.
//
// It reads as std::optional<SimTime> does (has_value, *, ->, value_or, == std::nullopt) and
// converts to and from it, so code written against the optional needs no change.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>

#include "kernel/time.hpp"

namespace t9k::kernel {

class OptionalTime {
 public:
  constexpr OptionalTime() = default;
  constexpr OptionalTime(std::nullopt_t) {}                // NOLINT: implicit, as optional's
  constexpr OptionalTime(SimTime t) : t_(checked(t)) {}    // NOLINT: as above
  constexpr OptionalTime(const std::optional<SimTime>& t)  // NOLINT: as above
      : t_(t ? checked(*t) : kUnset) {}

  constexpr OptionalTime& operator=(std::nullopt_t) {
    t_ = kUnset;
    return *this;
  }
  constexpr OptionalTime& operator=(SimTime t) {
    t_ = checked(t);
    return *this;
  }
  constexpr operator std::optional<SimTime>() const {  // NOLINT: implicit, to pass it on
    if (has_value()) return t_;
    return std::nullopt;
  }

  constexpr bool has_value() const { return t_ != kUnset; }
  constexpr explicit operator bool() const { return has_value(); }
  // Unchecked, as std::optional's: the caller knows it is set.
  constexpr const SimTime& operator*() const { return t_; }
  constexpr const SimTime* operator->() const { return &t_; }
  constexpr SimTime value() const {
    if (!has_value()) throw std::bad_optional_access();
    return t_;
  }
  constexpr SimTime value_or(SimTime otherwise) const { return has_value() ? t_ : otherwise; }
  constexpr SimTime& emplace(SimTime t) { return t_ = checked(t); }
  constexpr void reset() { t_ = kUnset; }

  // As std::optional compares: unset equals unset and is less than any time.
  friend constexpr bool operator==(const OptionalTime&, const OptionalTime&) = default;
  friend constexpr bool operator==(const OptionalTime& a, std::nullopt_t) { return !a; }
  friend constexpr bool operator==(const OptionalTime& a, SimTime t) { return a.t_ == t; }
  // Chosen over std::optional's own mixed comparison (a template), which would take an
  // OptionalTime as a value and call an unset one unequal to an empty optional.
  friend constexpr bool operator==(const OptionalTime& a, const std::optional<SimTime>& b) {
    return a == OptionalTime(b);
  }

 private:
  static constexpr SimTime kUnset{SimDuration{INT64_MIN}};
  static constexpr SimTime checked(SimTime t) {
    if (t == kUnset) throw std::out_of_range("OptionalTime: the unset value is not a time");
    return t;
  }
  SimTime t_ = kUnset;
};

}  // namespace t9k::kernel
