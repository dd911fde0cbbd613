#include "model/quantity.hpp"

#include <array>

#include <fmt/format.h>

#include "kernel/hash.hpp"

namespace t9k::model {

using kernel::Int128;

namespace {

[[noreturn]] void fail(std::string_view text, std::string_view why) {
  throw QuantityError(fmt::format(
      "invalid quantity \"{}\": {}; expected a Kubernetes quantity such as 500m, 2, 1.5, 4Gi, "
      "512Mi, 10G or 1e3",
      text, why));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

Int128 pow10(int e) {
  Int128 r = 1;
  for (int i = 0; i < e; ++i) r *= 10;
  return r;
}

}  // namespace

Quantity Quantity::parse(std::string_view text) {
  const std::string_view original = text;
  if (text.empty()) fail(original, "empty");
  bool negative = false;
  if (text.front() == '+' || text.front() == '-') {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  std::size_t i = 0;
  Int128 digits_value = 0;
  int significant = 0;
  int frac_len = 0;
  bool any_digit = false;
  auto take_digit = [&](char c) {
    if (significant >= 30) fail(original, "too many digits");
    digits_value = digits_value * 10 + (c - '0');
    if (digits_value != 0) ++significant;
    any_digit = true;
  };
  while (i < text.size() && is_digit(text[i])) take_digit(text[i++]);
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) {
      take_digit(text[i++]);
      ++frac_len;
    }
  }
  if (!any_digit) fail(original, "expected a number");
  const std::string_view suffix = text.substr(i);

  int binary_power = 0;  // value * 1024^binary_power
  int decimal_exp = 0;   // value * 10^decimal_exp
  if (suffix.empty()) {
  } else if (suffix.size() == 2 && suffix[1] == 'i') {
    static constexpr std::string_view kBinary = "KMGTPE";
    const auto pos = kBinary.find(suffix[0]);
    if (pos == std::string_view::npos) fail(original, fmt::format("unknown suffix \"{}\"", suffix));
    binary_power = static_cast<int>(pos) + 1;
  } else if ((suffix[0] == 'e' || suffix[0] == 'E') && suffix.size() > 1) {
    std::size_t j = 1;
    bool neg_exp = false;
    if (suffix[j] == '+' || suffix[j] == '-') {
      neg_exp = suffix[j] == '-';
      ++j;
    }
    if (j >= suffix.size()) fail(original, "exponent needs digits");
    int e = 0;
    for (; j < suffix.size(); ++j) {
      if (!is_digit(suffix[j])) fail(original, fmt::format("unknown suffix \"{}\"", suffix));
      e = e * 10 + (suffix[j] - '0');
      if (e > 30) fail(original, "exponent out of range");
    }
    decimal_exp = neg_exp ? -e : e;
  } else if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'n':
        decimal_exp = -9;
        break;
      case 'u':
        decimal_exp = -6;
        break;
      case 'm':
        decimal_exp = -3;
        break;
      case 'k':
        decimal_exp = 3;
        break;
      case 'M':
        decimal_exp = 6;
        break;
      case 'G':
        decimal_exp = 9;
        break;
      case 'T':
        decimal_exp = 12;
        break;
      case 'P':
        decimal_exp = 15;
        break;
      case 'E':
        decimal_exp = 18;
        break;
      default:
        fail(original, fmt::format("unknown suffix \"{}\"", suffix));
    }
  } else {
    fail(original, fmt::format("unknown suffix \"{}\"", suffix));
  }

  // milli = digits * 1024^b * 10^(decimal_exp + 3) / 10^frac_len, rounded up.
  Int128 num = digits_value;
  const Int128 limit = static_cast<Int128>(INT64_MAX) * 1000;
  auto mul = [&](Int128 k) {
    if (num != 0 && num > limit / k) fail(original, "too large");
    num *= k;
  };
  for (int b = 0; b < binary_power; ++b) mul(1024);
  const int e10 = decimal_exp + 3 - frac_len;
  Int128 den = 1;
  if (e10 >= 0) {
    if (e10 > 36) fail(original, "too large");
    mul(pow10(e10));
  } else {
    if (-e10 > 36) {
      den = 0;  // smaller than any milli-unit: rounds up to 1m (or 0)
    } else {
      den = pow10(-e10);
    }
  }
  Int128 milli = 0;
  if (den == 0) {
    milli = num == 0 ? 0 : 1;
  } else {
    milli = (num + den - 1) / den;  // round up, as MilliValue()
  }
  if (milli > INT64_MAX) fail(original, "too large");
  const auto m = static_cast<std::int64_t>(milli);
  return Quantity(negative ? -m : m);
}

std::string Quantity::to_string() const {
  if (milli_ % 1000 != 0) return fmt::format("{}m", milli_);
  const std::int64_t units = milli_ / 1000;
  static constexpr std::array<const char*, 6> kSuffix{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  if (units != 0 && units % (std::int64_t{1} << 20) == 0) {
    int k = 2;
    std::int64_t v = units >> 20;
    while (k < 6 && v % 1024 == 0) {
      v /= 1024;
      ++k;
    }
    return fmt::format("{}{}", v, kSuffix[k - 1]);
  }
  return fmt::format("{}", units);
}

}  // namespace t9k::model
