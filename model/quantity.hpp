// Kubernetes resource quantities ("500m", "4Gi", "1.5", "2e3"), held exactly as an integer count
// of milli-units: never floating point. Memory "4Gi" is 4 * 2^30 bytes = 4 * 2^30 * 1000 milli.
// Range: |value| < 9.2e15 units (about 8 PiB of memory), ample for any node or cluster.
#pragma once

#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace t9k::model {

class QuantityError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class Quantity {
 public:
  constexpr Quantity() = default;
  static constexpr Quantity from_milli(std::int64_t milli) { return Quantity(milli); }
  static constexpr Quantity from_units(std::int64_t units) { return Quantity(units * 1000); }

  // Parses the Kubernetes quantity grammar: <sign><digits>[.<digits>][<suffix>], suffix one of
  // the binary Ki Mi Gi Ti Pi Ei, the decimal n u m k M G T P E, or an exponent e<n> / E<n>.
  // Precision finer than 1m is rounded up to the next milli-unit, as Kubernetes' MilliValue()
  // does. Throws QuantityError naming the text and the grammar.
  static Quantity parse(std::string_view text);

  constexpr std::int64_t milli() const { return milli_; }
  // Whole units, rounded up (Kubernetes Value()): "500m" -> 1, "4Gi" -> 4294967296.
  constexpr std::int64_t units_ceil() const {
    return milli_ >= 0 ? (milli_ + 999) / 1000 : -((-milli_) / 1000);
  }
  constexpr bool is_zero() const { return milli_ == 0; }

  // Canonical text: milli-units when fractional ("500m"), a binary suffix for whole multiples of
  // 1Mi ("4Gi", "1536Mi"), plain units otherwise ("2", "1000"). parse(to_string()) == *this.
  std::string to_string() const;

  constexpr auto operator<=>(const Quantity&) const = default;
  constexpr Quantity& operator+=(Quantity o) {
    milli_ += o.milli_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    milli_ -= o.milli_;
    return *this;
  }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return a += b; }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return a -= b; }
  friend constexpr Quantity operator*(Quantity a, std::int64_t k) { return Quantity(a.milli_ * k); }

 private:
  constexpr explicit Quantity(std::int64_t milli) : milli_(milli) {}
  std::int64_t milli_ = 0;
};

}  // namespace t9k::model
