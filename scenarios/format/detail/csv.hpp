// Internal: CSV files as the trace formats read them: streamed a line at a time, fields with
// their 1-based columns (RFC 4180 quoting within a line), and field readers that report a bad
// row at the field's column.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "scenarios/format/detail/row_errors.hpp"

namespace t9k::scenarios::detail {

struct CsvField {
  std::string_view text;
  int column = 1;
};

// Splits one line (RFC 4180 quoting within the line; no line breaks inside quotes). Quoted
// fields are unescaped into `scratch`, which must outlive the fields.
// Returns the column of a quote not closed on the line, or 0.
int split_csv(std::string_view line, std::vector<CsvField>& out, std::vector<std::string>& scratch);

std::string_view trim(std::string_view s);

std::optional<std::int64_t> parse_int(std::string_view s);

std::optional<double> parse_real(std::string_view s);

// Whole microseconds of `x` units of `unit_us`, or nullopt when out of range.
std::optional<std::int64_t> to_us(double x, double unit_us);

// "YYYY-MM-DD HH:MM:SS" (UTC, as Philly records it) or RFC 3339, to µs since the Unix epoch.
std::optional<std::int64_t> parse_datetime(std::string_view s);

// The most memory a row may give a pod or node, in MiB: 8 PiB, the largest that is still a
// quantity (milli-bytes in 64 bits, model/quantity.hpp), as a node pool's memory may be.
inline constexpr std::int64_t kMaxMemoryMib = std::int64_t{1} << 33;

// Streams a CSV file: the header, then each non-blank row with its line number.
class CsvReader {
 public:
  CsvReader(const std::string& path, RowErrors& errors) : in_(path), errors_(errors) {
    if (!in_) {
      errors_.fatal(0, 0, "cannot open the file");
      return;
    }
    if (!std::getline(in_, line_)) {
      errors_.fatal(1, 1, "found an empty file; allowed: a header line, then rows");
      return;
    }
    line_no_ = 1;
    if (line_.size() >= 3 && line_.compare(0, 3, "\xEF\xBB\xBF") == 0)
      line_.erase(0, 3);  // UTF-8 BOM
    if (const auto cr = line_.find('\r'); cr != std::string::npos && cr + 1 < line_.size()) {
      errors_.fatal(1, static_cast<int>(cr) + 1,
                    "found a line break that is a CR alone (a classic Mac file); allowed: LF or "
                    "CRLF line breaks (convert the file, e.g. tr '\\r' '\\n')");
      return;
    }
    if (const int open = split_csv(line_, fields_, scratch_)) {
      errors_.fatal(1, open,
                    "header: found a quote '\"' not closed on its line; allowed: quoted names "
                    "closed on their line");
      return;
    }
    for (std::size_t i = 0; i < fields_.size(); ++i) header_.emplace_back(trim(fields_[i].text));
    ok_ = true;
  }
  bool ok() const { return ok_; }
  // Index of a header column; reports a fatal error naming the columns found when `required`.
  std::optional<std::size_t> column(std::string_view name, bool required) {
    for (std::size_t i = 0; i < header_.size(); ++i) {
      if (header_[i] == name) return i;
    }
    if (required) {
      std::string found;
      for (const auto& h : header_) found += (found.empty() ? "" : ", ") + h;
      errors_.fatal(1, 1,
                    fmt::format("header: found no column \"{}\"; the header has: {}", name, found));
    }
    return std::nullopt;
  }
  bool next() {
    while (std::getline(in_, line_)) {
      ++line_no_;
      if (trim(line_).empty()) continue;
      open_quote_ = split_csv(line_, fields_, scratch_);
      return true;
    }
    return false;
  }
  int line() const { return line_no_; }
  // The field of a column, or nullopt after reporting "missing column" for this row.
  std::optional<CsvField> field(std::size_t index) {
    if (open_quote_ != 0) {  // the fields after it are not what the row meant
      const std::size_t open_field = fields_.size() - 1;
      errors_.bad(line_no_, open_quote_, open_field < header_.size() ? header_[open_field] : "",
                  "found a quote '\"' with no closing quote on this line; allowed: a quoted field "
                  "closed on its line (\"\" for a quote inside; fields may not span lines)");
      return std::nullopt;
    }
    if (index < fields_.size()) return fields_[index];
    errors_.bad(line_no_, static_cast<int>(line_.size()) + 1, header_[index],
                fmt::format("missing column {} (\"{}\"): the row has {} field{}", index + 1,
                            header_[index], fields_.size(), fields_.size() == 1 ? "" : "s"));
    return std::nullopt;
  }
  const std::string& header(std::size_t index) const { return header_[index]; }

 private:
  std::ifstream in_;
  RowErrors& errors_;
  std::string line_;
  int line_no_ = 0;
  int open_quote_ = 0;  // the column of a quote the current row leaves open
  std::vector<std::string> header_;
  std::vector<CsvField> fields_;
  std::vector<std::string> scratch_;
  bool ok_ = false;
};

// Field readers for one row: each reports the row bad at the field's column and returns nullopt.
struct Row {
  CsvReader& csv;
  RowErrors& errors;
  bool bad = false;

  std::optional<CsvField> get(std::size_t col, bool allow_empty = false) {
    if (bad) return std::nullopt;
    auto f = csv.field(col);
    if (!f) {
      bad = true;
      return std::nullopt;
    }
    if (!allow_empty && trim(f->text).empty()) {
      fail(*f, col, "found an empty value; allowed: a value");
      return std::nullopt;
    }
    return f;
  }
  void fail(const CsvField& f, std::size_t col, std::string message) {
    if (bad) return;
    bad = true;
    errors.bad(csv.line(), f.column, csv.header(col), std::move(message));
  }
  std::optional<std::int64_t> integer(std::size_t col, std::int64_t min, std::int64_t max) {
    auto f = get(col);
    if (!f) return std::nullopt;
    const auto v = parse_int(f->text);
    if (!v || *v < min || *v > max) {
      fail(*f, col,
           fmt::format("found \"{}\"; allowed: an integer in [{}, {}]", f->text, min, max));
      return std::nullopt;
    }
    return v;
  }
  // A non-negative amount of time in `unit_us` microseconds per unit.
  std::optional<std::int64_t> duration(std::size_t col, double unit_us) {
    auto f = get(col);
    if (!f) return std::nullopt;
    const auto v = parse_real(f->text);
    if (!v) {
      fail(*f, col, fmt::format("found \"{}\"; allowed: a number", f->text));
      return std::nullopt;
    }
    if (*v < 0) {
      fail(*f, col, fmt::format("found a negative duration {}; allowed: >= 0", f->text));
      return std::nullopt;
    }
    const auto us = to_us(*v, unit_us);
    if (!us)
      fail(*f, col, fmt::format("found {}; allowed: a duration below 290,000 years", f->text));
    return us;
  }
  std::optional<std::int64_t> time(std::size_t col, const std::string& format) {
    auto f = get(col);
    if (!f) return std::nullopt;
    std::optional<std::int64_t> us;
    if (format == "datetime" || format == "rfc3339") {
      us = parse_datetime(f->text);
    } else if (auto v = parse_real(f->text)) {
      us = to_us(*v, format == "unix-ms" ? 1e3 : 1e6);
    }
    if (!us) {
      fail(*f, col,
           fmt::format("found \"{}\"; allowed: a time ({})", f->text,
                       format == "datetime"  ? "YYYY-MM-DD HH:MM:SS, UTC"
                       : format == "rfc3339" ? "RFC 3339"
                       : format == "unix-ms" ? "milliseconds"
                                             : "seconds"));
    }
    return us;
  }
};

// The index of `s` in `table`, added when new.
std::int32_t intern(std::vector<std::string>& table,
                    std::map<std::string, std::int32_t, std::less<>>& index, std::string_view s);

}  // namespace t9k::scenarios::detail
