// Numbers as a planner reads them (issue "reports a manager can read"): durations in the unit that
// fits, counts with thousands separators, shares as percentages. Used by the console and report.
#pragma once

#include <string>

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

}  // namespace t9k::analysis
