#include "analysis/csv.hpp"

#include <array>
#include <charconv>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace t9k::analysis {

namespace {

// A cell a spreadsheet would evaluate as a formula ("CSV injection", OWASP): it starts with = + -
// @ tab or CR and is not a plain number (-1.5 and 2e-3 are data and stay as they are).
bool formula_like(std::string_view s) {
  if (s.empty() || std::string_view("=+-@\t\r").find(s.front()) == std::string_view::npos)
    return false;
  if (s.find_first_not_of("0123456789.eE+-") != std::string_view::npos) return true;
  double v = 0;
  const char* begin = s.data() + (s.front() == '+' ? 1 : 0);
  const auto [p, ec] = std::from_chars(begin, s.data() + s.size(), v);
  return ec != std::errc() || p != s.data() + s.size();
}

// Guarded: a formula, or apostrophes before one (so that what the reader strips is exactly what
// the writer added).
bool needs_guard(std::string_view s) {
  while (!s.empty() && s.front() == '\'') s.remove_prefix(1);
  return formula_like(s);
}

// What csv_field guarded with a leading apostrophe (spreadsheets show it as text) is read back as
// it was written.
void unguard(std::string& field) {
  if (field.size() > 1 && field.front() == '\'' && needs_guard(std::string_view(field).substr(1)))
    field.erase(0, 1);
}

}  // namespace

std::optional<std::size_t> CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

std::string_view CsvTable::field(std::size_t row, std::string_view name) const {
  const auto c = column(name);
  if (!c || row >= rows.size()) return {};
  return rows[row][*c];
}

std::optional<double> CsvTable::number(std::size_t row, std::string_view name) const {
  const std::string_view f = field(row, name);
  if (f.empty()) return std::nullopt;
  double v = 0;
  const auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || p != f.data() + f.size()) return std::nullopt;
  return v;
}

CsvTable parse_csv(std::string_view text, const std::string& what) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool in_quotes = false;
  bool any = false;  // the current record has content (so a final line without '\n' counts)
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_quotes = true;
        any = true;
        break;
      case ',':
        unguard(field);
        record.push_back(std::move(field));
        field.clear();
        any = true;
        break;
      case '\r':
        break;
      case '\n':
        unguard(field);
        record.push_back(std::move(field));
        field.clear();
        records.push_back(std::move(record));
        record.clear();
        any = false;
        ++line;
        break;
      default:
        field += c;
        any = true;
    }
  }
  if (in_quotes)
    throw std::runtime_error(fmt::format("{}: line {}: unterminated quoted field", what, line));
  if (any) {
    unguard(field);
    record.push_back(std::move(field));
    records.push_back(std::move(record));
  }
  CsvTable t;
  if (records.empty()) return t;
  t.header = std::move(records.front());
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() == 1 && records[r][0].empty()) continue;  // blank line
    if (records[r].size() != t.header.size()) {
      throw std::runtime_error(fmt::format("{}: record {}: {} fields, header has {}", what, r + 1,
                                           records[r].size(), t.header.size()));
    }
    t.rows.push_back(std::move(records[r]));
  }
  return t;
}

void append_csv_field(fmt::memory_buffer& out, std::string_view text) {
  // The guard's apostrophe is no character that needs quotes: quoted or not depends on the text.
  // One pass of table look-ups (find_first_of searched the set once per character; four
  // compares a character were still a jobs.csv row's largest cost after its numbers).
  static constexpr std::array<bool, 256> kNeedsQuotes = [] {
    std::array<bool, 256> t{};
    for (const unsigned char c : {',', '"', '\n', '\r'}) t[c] = true;
    return t;
  }();
  bool quote = false;
  for (const char c : text) quote |= kNeedsQuotes[static_cast<unsigned char>(c)];
  if (quote) out.push_back('"');
  if (needs_guard(text)) out.push_back('\'');
  if (!quote) {
    out.append(text);
    return;
  }
  for (const char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

void flush_piece(std::ostream& os, fmt::memory_buffer& out, bool last) {
  if (!last && out.size() < kFlushBytes) return;
  os.write(out.data(), static_cast<std::streamsize>(out.size()));
  out.clear();
}

std::string csv_field(const std::string& text) {
  fmt::memory_buffer out;
  append_csv_field(out, text);
  return fmt::to_string(out);
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_field(fields[i]);
  }
  out += '\n';
  return out;
}

void for_each_csv_chunk(const std::filesystem::path& file,
                        const std::function<void(const CsvTable&)>& chunk) {
  // A record ends at a newline outside quotes.
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file.string() + ": cannot be read");
  std::string header;
  if (!std::getline(in, header)) return;
  constexpr std::size_t kRows = 8192;
  std::string buffer = header + "\n";
  std::string line;
  std::size_t rows = 0;
  bool quoted = false;
  while (std::getline(in, line)) {
    buffer += line;
    buffer += '\n';
    for (const char c : line) quoted ^= (c == '"');
    if (quoted) continue;
    if (++rows == kRows) {
      chunk(parse_csv(buffer, file.string()));
      buffer = header + "\n";
      rows = 0;
    }
  }
  // An unterminated quote at the end is parsed too, so parse_csv says so.
  if (rows > 0 || quoted) chunk(parse_csv(buffer, file.string()));
}

}  // namespace t9k::analysis
