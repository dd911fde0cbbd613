// Numbers as a planner reads them (issue "reports a manager can read"): durations in the unit that
// fits, counts with thousands separators, shares as percentages. Used by the console and report.
#pragma once

#include <string>
#include <string_view>

namespace t9k::analysis {

// Seconds as "42 s", "3.5 min", "2.1 h" or "1.5 d" (three significant digits, no trailing zeros);
// "–" for a value that is not finite.
std::string format_duration_s(double seconds);
// A count with thousands separators: 1234567 -> "1,234,567"; non-integers keep 3 significant
// digits.
std::string format_count(double v);
// A size in bytes: "812 B", "12.3 kB", "4.56 MB", "1.2 GB" (decimal units, three digits).
std::string format_bytes(double bytes);
// A share as a percentage: 0.4123 -> "41.2 %".
std::string format_percent(double share);
// A plain number as people read it (issue 48: no e-notation, no noise digits): whole numbers and
// values of 1,000 or more rounded, with thousands separators; others with four significant
// digits, or, given the half-width of the interval it belongs to, to that half-width's second
// significant digit (0.8299 ± 0.03643 reads "0.83 ± 0.036"); trailing zeros dropped.
std::string format_number(double v, double half_width = 0);
// A summary metric's value (docs/outputs.md names, with or without a GROUP/VALUE/ prefix) in its
// unit: durations (names ending in _s), shares (utilisations, goodput, quota shares) as
// percentages, energy (names ending in _kwh) in kWh, anything else by format_number.
std::string format_metric(std::string_view metric, double v, double half_width = 0);

}  // namespace t9k::analysis
