#include "scenarios/format/detail/csv.hpp"

#include <charconv>
#include <cmath>

#include "scenarios/format/serialize.hpp"

namespace t9k::scenarios::detail {

namespace m = t9k::model;

int split_csv(std::string_view line, std::vector<CsvField>& out,
              std::vector<std::string>& scratch) {
  out.clear();
  scratch.clear();
  scratch.reserve(line.size());
  int open_quote = 0;
  std::size_t i = 0;
  while (true) {
    const int col = static_cast<int>(i) + 1;
    if (i < line.size() && line[i] == '"') {
      std::string s;
      bool closed = false;
      ++i;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            s += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        s += line[i++];
      }
      if (!closed && open_quote == 0) open_quote = col;
      scratch.push_back(std::move(s));
      out.push_back(CsvField{scratch.back(), col});
      while (i < line.size() && line[i] != ',') ++i;
    } else {
      const std::size_t end = std::min(line.find(',', i), line.size());
      out.push_back(CsvField{line.substr(i, end - i), col});
      i = end;
    }
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return open_quote;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  s = trim(s);
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<double> parse_real(std::string_view s) {
  s = trim(s);
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// Whole microseconds of `x` units of `unit_us`, or nullopt when out of range.
std::optional<std::int64_t> to_us(double x, double unit_us) {
  const double us = x * unit_us;
  if (!std::isfinite(us) || std::fabs(us) > 9.2e18) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(us));
}

// "YYYY-MM-DD HH:MM:SS" (UTC, as Philly records it) or RFC 3339, to µs since the Unix epoch.
std::optional<std::int64_t> parse_datetime(std::string_view s) {
  s = trim(s);
  if (s.size() < 19) return std::nullopt;
  std::string text(s);
  if (text[10] == ' ') text[10] = 'T';
  if (text.size() == 19) text += 'Z';
  m::SimTime t{};
  if (!parse_timestamp(text, t)) return std::nullopt;
  return t.time_since_epoch().count();
}

std::int32_t intern(std::vector<std::string>& table,
                    std::map<std::string, std::int32_t, std::less<>>& index, std::string_view s) {
  if (auto it = index.find(s); it != index.end()) return it->second;
  const auto i = static_cast<std::int32_t>(table.size());
  table.emplace_back(s);
  index.emplace(std::string(s), i);
  return i;
}

}  // namespace t9k::scenarios::detail
