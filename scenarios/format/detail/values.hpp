// Internal: values every section of a scenario reads: durations and distributions, whole
// numbers, names chosen by weight, times since time zero and option maps. Each reports what it
// refuses to `r` and returns nothing then.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kernel/random.hpp"
#include "scenarios/format/detail/reader.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::scenarios::detail {

inline constexpr double kMaxDouble = std::numeric_limits<double>::max();

// A number of seconds or a duration string ("90s"), for time-valued parameters.
std::optional<double> seconds(Report& r, const Val& v);
// Any finite number.
std::optional<double> number(Report& r, const Val& v);
// A duration string ("30s") is a constant; a single-key mapping names a distribution, e.g.
// {lognormal: {mu: 1.5, sigma: 0.4}} (parameters in seconds where they are times).
// `duration`: the values are durations, cut at kMaxDurationSeconds (int_dist reuses the reader).
std::optional<DurationDistribution> duration_dist(Report& r, const Val& v, bool duration = true);
// A map of option strings; with `marks_of`, each option's place is remembered there.
std::map<std::string, std::string> options(Report& r, const Val& v, Scenario* marks_of = nullptr);
// Remembers where option `val` is in the file (Scenario::option_marks), for later errors.
void mark_option(Scenario& sc, const Val& val);
// A whole number: an integer, {choice: {values: [...], weights: [...]}}, or a real
// distribution (rounded). Values of `choice` must lie in [lo, hi]; real draws are clamped.
std::optional<IntDistribution> int_dist(Report& r, const Val& v, std::int64_t lo, std::int64_t hi);
// A name, or {choice: {values: [names], weights: [...]}}, each one of `allowed`.
std::optional<ChoiceDistribution> name_choice(Report& r, const Val& v,
                                              std::span<const std::string_view> allowed);
// A real number or one distribution (parameters as numbers), e.g. a hazard per hour.
std::optional<kernel::Distribution> real_dist(Report& r, const Val& v);
// A time since time zero, as a duration ("90m").
std::optional<SimTime> time_point(Report& r, const Val& v);

}  // namespace t9k::scenarios::detail
