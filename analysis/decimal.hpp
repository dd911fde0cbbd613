// Numbers written into the CSV files as fmt's "{:.Nf}" and "{:.Ng}" (and printf) write them, with
// fewer instructions: a jobs.csv row has up to a dozen, a million-job run a million rows.
#pragma once

#include <fmt/format.h>

namespace t9k::analysis {

// `x` with `decimals` digits after the point (0 to 9): the exact binary value rounded half to
// even, as "{:.Nf}" writes it. Integer arithmetic on the double's bits where the value allows
// (every magnitude the outputs hold), std::to_chars otherwise.
void append_fixed(fmt::memory_buffer& out, double x, int decimals);
// `x` with `digits` significant digits (1 to 17), trailing zeros dropped, as "{:.Ng}" writes it.
void append_general(fmt::memory_buffer& out, double x, int digits);

}  // namespace t9k::analysis
