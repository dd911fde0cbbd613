// Reading the CSV files `t9ksim run` writes (RFC 4180: quoted fields, doubled quotes, CRLF or LF).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace t9k::analysis {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // every row has header.size() fields
  // Index of a column, or nullopt.
  std::optional<std::size_t> column(std::string_view name) const;
  // Field of row i in column `name`; empty when the column is absent.
  std::string_view field(std::size_t row, std::string_view name) const;
  // The field as a number; nullopt when empty, absent or not a number.
  std::optional<double> number(std::size_t row, std::string_view name) const;
};

// Throws std::runtime_error naming `what` (e.g. the file) when a row has the wrong field count or
// a quote is unterminated.
CsvTable parse_csv(std::string_view text, const std::string& what);

// A CSV file in chunks of rows (each a CsvTable with the header), so a file of millions of rows
// is never held whole; a quoted field may hold a newline. Throws std::runtime_error naming the
// file when it cannot be read or does not parse.
void for_each_csv_chunk(const std::filesystem::path& file,
                        const std::function<void(const CsvTable&)>& chunk);

// Writing: RFC 4180 quoting (fields with a comma, quote or newline are quoted, quotes doubled);
// a field a spreadsheet would run as a formula (starting with = + - @ tab or CR, and not a
// number) gets a leading apostrophe, which parse_csv removes again.
std::string csv_field(const std::string& s);
// A CSV file made line by line goes to its stream in pieces of about kFlushBytes (a whole file's
// string, doubling as it grew, took fresh pages at the end of a run: issue 49). flush_piece
// writes `out` to `os` and empties it once it holds that much, or whatever it holds with `last`.
// Lines are appended straight to `out` (one buffer, no line's copy).
inline constexpr std::size_t kFlushBytes = 64 * 1024;
void flush_piece(std::ostream& os, fmt::memory_buffer& out, bool last = false);
// csv_field(s) appended to `out`, without a string of its own (a jobs.csv row has four text
// fields, a million-job run a million rows).
void append_csv_field(fmt::memory_buffer& out, std::string_view s);
// The fields quoted as needed, joined by ',', ending in '\n'.
std::string csv_row(const std::vector<std::string>& fields);

}  // namespace t9k::analysis
