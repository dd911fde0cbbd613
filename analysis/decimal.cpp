// Fixed and general notation, exact (docs/outputs.md: the CSV files' numbers).
#include "analysis/decimal.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <stdexcept>

#include "kernel/hash.hpp"
#include "kernel/time.hpp"

namespace t9k::analysis {

namespace {

using kernel::UInt128;

constexpr std::array<std::uint64_t, 10> kPow10{1,      10,      100,      1000,      10000,
                                               100000, 1000000, 10000000, 100000000, 1000000000};

void append_to_chars(fmt::memory_buffer& out, double x, std::chars_format f, int precision) {
  char buf[400];  // the longest fixed text of a double: 309 digits, a sign, a point and 17 more
  const auto r = std::to_chars(buf, buf + sizeof buf, x, f, precision);
  if (r.ec != std::errc()) throw std::logic_error("append_to_chars: no room for the number");
  out.append(buf, r.ptr);
}

// q / 10^decimals with its point, q < 2^64 · 10^decimals.
void append_scaled(fmt::memory_buffer& out, UInt128 q, int decimals) {
  const std::uint64_t p = kPow10[static_cast<std::size_t>(decimals)];
  std::uint64_t whole = 0, frac = 0;
  if (q >> 64 == 0) {  // 64-bit division, not the 128-bit routine's
    whole = static_cast<std::uint64_t>(q) / p;
    frac = static_cast<std::uint64_t>(q) % p;
  } else {
    whole = static_cast<std::uint64_t>(q / p);
    frac = static_cast<std::uint64_t>(q % p);
  }
  kernel::append_decimal(out, false, whole, frac, decimals);  // the sign is written already
}

}  // namespace

void append_fixed(fmt::memory_buffer& out, double x, int decimals) {
  if (decimals < 0 || decimals > 9) throw std::logic_error("append_fixed: 0 to 9 decimals");
  // |x| = m · 2^-shift with m < 2^53 an integer, read from the double's bits.
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  std::uint64_t m = bits & ((std::uint64_t{1} << 52) - 1);
  int shift = 0;
  if (biased == 0x7ff) return append_to_chars(out, x, std::chars_format::fixed, decimals);
  if (biased == 0) {
    if (m != 0) return append_to_chars(out, x, std::chars_format::fixed, decimals);  // subnormal
  } else {
    m |= std::uint64_t{1} << 52;
    shift = 1075 - biased;
  }
  // The integer paths need |x| < 2^63 (the whole part in 64 bits) and a shift the 128-bit
  // arithmetic holds; m · 10^9 < 2^83.
  if (shift < -10 || shift > 120)
    return append_to_chars(out, x, std::chars_format::fixed, decimals);
  if (bits >> 63 != 0)
    out.push_back('-');  // "-0.000" for a negative that rounds to zero, as printf
  const UInt128 scaled = static_cast<UInt128>(m) * kPow10[static_cast<std::size_t>(decimals)];
  if (shift <= 0) return append_scaled(out, scaled << -shift, decimals);  // an integer, or zero
  UInt128 q = scaled >> shift;
  const UInt128 rest = scaled - (q << shift);
  const UInt128 half = static_cast<UInt128>(1) << (shift - 1);
  if (rest > half || (rest == half && (q & 1) != 0)) ++q;  // half to even
  append_scaled(out, q, decimals);
}

void append_general(fmt::memory_buffer& out, double x, int digits) {
  if (digits < 1 || digits > 17) throw std::logic_error("append_general: 1 to 17 digits");
  append_to_chars(out, x, std::chars_format::general, digits);
}

}  // namespace t9k::analysis
