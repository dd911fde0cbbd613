// Numbers on the command line, checked before anything runs (docs/reliability.md "Numbers on the
// command line"). CLI11 alone reads "-1" into an unsigned option as 2^64 - 1, "010" as octal and
// "0x10" as hex; these validators accept decimal digits only, within documented limits, and name
// the offending text with its control characters escaped.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace t9k::app {

inline constexpr std::uint64_t kMaxReplications = 100000;  // as spec.replications
inline constexpr std::uint64_t kMaxReplicationNumber =
    1000000000;                                     // --first-replication, --replication
inline constexpr std::uint64_t kMaxThreads = 1024;  // -j (0: one per core)
inline constexpr std::uint64_t kMaxJobsBudget = 1000000000000ULL;  // --max-jobs
inline constexpr std::uint64_t kMaxImportJobs = 100000000;         // import --limit
inline constexpr std::uint64_t kMaxImportNodes = 1000000;          // import --nodes
inline constexpr std::uint64_t kMaxImportGpusPerNode = 1024;       // import --gpus-per-node
inline constexpr std::uint64_t kMaxShards = 1000000;               // shard --count

// A whole number in lo..hi written in decimal digits; use with CLI::Option::transform, which
// rewrites it without leading zeros (`check` would leave "010" to CLI11, which reads octal).
CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi);
// A decimal number (digits, one point, an optional exponent; no sign, nan or inf) with
// lo < x <= hi when lo_open, else lo <= x <= hi.
CLI::Validator decimal_number(double lo, double hi, bool lo_open);
// `text` with control characters and non-ASCII bytes as \xNN, for error messages.
std::string printable(const std::string& text);

}  // namespace t9k::app
