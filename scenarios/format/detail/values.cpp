// Values every section reads: durations and distributions, whole numbers, names, times and option
// maps.
#include "scenarios/format/detail/values.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kChoice[] = {"values", "weights"};

// Every duration drawn is cut at this many seconds (DurationDistribution::draw); a distribution
// whose mean is beyond it is refused rather than cut silently.
constexpr double kMaxDurationSeconds = 1e12;
constexpr std::string_view kDistributions[] = {"constant", "uniform",       "exponential",
                                               "normal",   "lognormal",     "weibull",
                                               "gamma",    "boundedPareto", "empirical"};

// Weights for `choices` (default 1 each): as many as values, >= 0, summing to > 0.
template <class T>
bool choice_weights(Report& r, const MapReader& p, const Val& c,
                    std::vector<std::pair<T, double>>& choices) {
  if (choices.empty()) {
    if (!r.has_error_under(c.path)) {
      r.error(p.get("values").mark, p.get("values").path,
              "found an empty list; allowed: at least one value");
    }
    return false;
  }
  const Val wv = p.get("weights");
  if (wv.present()) {
    const auto ws = read_list(r, wv);
    if (ws.size() != choices.size()) {
      r.error(wv.mark, wv.path,
              fmt::format("found {} weights for {} values; allowed: one weight per value",
                          ws.size(), choices.size()));
      return false;
    }
    for (std::size_t i = 0; i < ws.size(); ++i) {
      const auto w = read_double(r, ws[i], 0, kMaxDouble);
      if (!w) return false;
      choices[i].second = *w;
    }
  }
  double total = 0;
  for (const auto& [value, w] : choices) total += w;
  if (!(total > 0) || !std::isfinite(total)) {
    r.error(wv.mark, wv.path,
            "found weights summing to 0; allowed: weights >= 0 with a positive, finite sum");
    return false;
  }
  return true;
}

}  // namespace

// A number of seconds or a duration string ("90s"), for time-valued parameters.
std::optional<double> seconds(Report& r, const Val& v) {
  if (!require(r, v)) return std::nullopt;
  if (v.node.IsScalar() && v.node.Tag() != "?") {
    // Quoted text: a duration.
    if (auto d = read_duration(r, v)) return static_cast<double>(d->count()) / 1e6;
    return std::nullopt;
  }
  if (v.node.IsScalar()) {
    const std::string& s = v.node.Scalar();
    const bool numeric = !s.empty() &&
                         (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' ||
                          s[0] == '+' || s[0] == '.') &&
                         std::all_of(s.begin(), s.end(), [](char c) {
                           return std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
                                  c == 'e' || c == 'E' || c == '-' || c == '+';
                         });
    if (!numeric) {
      if (auto d = read_duration(r, v)) return static_cast<double>(d->count()) / 1e6;
      return std::nullopt;
    }
  }
  return read_double(r, v, -kMaxDouble, kMaxDouble);
}

std::optional<double> number(Report& r, const Val& v) {
  if (!require(r, v)) return std::nullopt;
  return read_double(r, v, -kMaxDouble, kMaxDouble);
}

// A duration string ("30s") is a constant; a single-key mapping names a distribution, e.g.
// {lognormal: {mu: 1.5, sigma: 0.4}} (parameters in seconds where they are times).
// `duration`: the values are durations, cut at kMaxDurationSeconds (int_dist reuses the reader).
std::optional<DurationDistribution> duration_dist(Report& r, const Val& v, bool duration) {
  r.tick();
  if (!v.present()) return std::nullopt;
  if (v.node.IsScalar()) {
    if (auto d = read_duration(r, v)) {
      if (duration && static_cast<double>(d->count()) / 1e6 > kMaxDurationSeconds) {
        r.error(v.mark, v.path,
                "found more than 1e12 s; allowed: at most 1e12 s (about 31,700 years), the longest "
                "duration the simulator keeps");
        return std::nullopt;
      }
      return DurationDistribution::constant(*d);
    }
    return std::nullopt;
  }
  if (!v.node.IsMap() || v.node.size() != 1) {
    r.error(v.mark, v.path,
            fmt::format("found {}; allowed: a duration such as 30s, or a mapping with one "
                        "distribution, e.g. {{lognormal: {{mu: 1.5, sigma: 0.4}}}}",
                        v.node.IsMap() ? fmt::format("a mapping with {} keys", v.node.size())
                                       : describe(v.node)));
    return std::nullopt;
  }
  MapReader mr(r, v, kDistributions);
  if (mr.entries().empty()) return std::nullopt;
  const auto& [name, params] = mr.entries().front();
  try {
    DurationDistribution out;
    if (name == "constant") {
      MapReader p(r, params, std::array<std::string_view, 1>{"value"});
      const auto x = seconds(r, p.get("value"));
      if (!x) return std::nullopt;
      out.seconds = kernel::Constant{*x};
    } else if (name == "uniform") {
      MapReader p(r, params, std::array<std::string_view, 2>{"min", "max"});
      const auto lo = seconds(r, p.get("min"));
      const auto hi = seconds(r, p.get("max"));
      if (!lo || !hi) return std::nullopt;
      out.seconds = kernel::Uniform{*lo, *hi};
    } else if (name == "exponential") {
      MapReader p(r, params, std::array<std::string_view, 2>{"mean", "rate"});
      if (p.has("mean") == p.has("rate")) {
        r.error(params.mark, params.path,
                "found both or neither of mean and rate; allowed: exactly one (mean in "
                "seconds or as a duration, rate per second)");
        return std::nullopt;
      }
      if (p.has("mean")) {
        const auto mean = seconds(r, p.get("mean"));
        if (!mean) return std::nullopt;
        out.seconds = kernel::Exponential{*mean > 0 ? 1 / *mean : 0};
      } else {
        const auto rate = number(r, p.get("rate"));
        if (!rate) return std::nullopt;
        out.seconds = kernel::Exponential{*rate};
      }
    } else if (name == "normal") {
      MapReader p(r, params, std::array<std::string_view, 2>{"mu", "sigma"});
      const auto mu = seconds(r, p.get("mu"));
      const auto sigma = seconds(r, p.get("sigma"));
      if (!mu || !sigma) return std::nullopt;
      out.seconds = kernel::Normal{*mu, *sigma};
    } else if (name == "lognormal") {
      MapReader p(r, params, std::array<std::string_view, 2>{"mu", "sigma"});
      const auto mu = number(r, p.get("mu"));
      const auto sigma = number(r, p.get("sigma"));
      if (!mu || !sigma) return std::nullopt;
      out.seconds = kernel::LogNormal{*mu, *sigma};
    } else if (name == "weibull" || name == "gamma") {
      MapReader p(r, params, std::array<std::string_view, 2>{"shape", "scale"});
      const auto shape = number(r, p.get("shape"));
      const auto scale = seconds(r, p.get("scale"));
      if (!shape || !scale) return std::nullopt;
      if (name == "weibull") {
        out.seconds = kernel::Weibull{*shape, *scale};
      } else {
        out.seconds = kernel::Gamma{*shape, *scale};
      }
    } else if (name == "boundedPareto") {
      MapReader p(r, params, std::array<std::string_view, 3>{"alpha", "min", "max"});
      const auto alpha = number(r, p.get("alpha"));
      const auto lo = seconds(r, p.get("min"));
      const auto hi = seconds(r, p.get("max"));
      if (!alpha || !lo || !hi) return std::nullopt;
      out.seconds = kernel::BoundedPareto{*alpha, *lo, *hi};
    } else {  // empirical
      MapReader p(r, params, std::array<std::string_view, 1>{"points"});
      const Val pts = p.get("points");
      if (!require(r, pts)) return std::nullopt;
      std::vector<std::pair<double, double>> points;
      for (const Val& item : read_list(r, pts)) {
        if (!item.node.IsSequence() || item.node.size() != 2) {
          r.error(item.mark, item.path,
                  fmt::format("found {}; allowed: a pair [value, cumulative probability]",
                              describe(item.node)));
          return std::nullopt;
        }
        const auto pair = read_list(r, item);
        const auto x = seconds(r, pair[0]);
        const auto q = number(r, pair[1]);
        if (!x || !q) return std::nullopt;
        points.emplace_back(*x, *q);
      }
      out.seconds = kernel::EmpiricalCdf{std::move(points)};
    }
    if (duration && !(out.seconds.mean() <= kMaxDurationSeconds)) {
      // The simulator cuts every draw at 1e12 s; a mean beyond it would be cut silently.
      r.error(v.mark, v.path,
              fmt::format("found a mean of {:.3g} s; allowed: at most 1e12 s (about 31,700 "
                          "years), the longest "
                          "duration the simulator keeps",
                          out.seconds.mean()));
      return std::nullopt;
    }
    return out;
  } catch (const kernel::DistributionError& e) {
    r.error(params.mark, params.path, fmt::format("invalid parameters: {}", e.what()));
    return std::nullopt;
  }
}

std::map<std::string, std::string> options(Report& r, const Val& v, Scenario* marks_of) {
  std::map<std::string, std::string> out;
  for (const auto& [k, val] : FreeMap(r, v).entries()) {
    out[k] = val.present() ? val.node.Scalar() : "";
    if (marks_of) mark_option(*marks_of, val);
  }
  return out;
}

void mark_option(Scenario& sc, const Val& val) {
  sc.option_marks[val.path] = {val.mark.line + 1, val.mark.column + 1};
}

// A whole number: an integer, {choice: {values: [...], weights: [...]}}, or a real
// distribution (rounded). Values of `choice` must lie in [lo, hi]; real draws are clamped.
std::optional<IntDistribution> int_dist(Report& r, const Val& v, std::int64_t lo, std::int64_t hi) {
  r.tick();
  if (!v.present()) return std::nullopt;
  if (v.node.IsScalar()) {
    if (auto x = read_int(r, v, lo, hi)) return IntDistribution::constant(*x);
    return std::nullopt;
  }
  if (!v.node.IsMap() || v.node.size() != 1) {
    r.error(
        v.mark, v.path,
        fmt::format("found {}; allowed: an integer, {{choice: {{values: [...], weights: [...]}}}} "
                    "or one distribution such as {{uniform: {{min: 1, max: 4}}}}",
                    v.node.IsMap() ? fmt::format("a mapping with {} keys", v.node.size())
                                   : describe(v.node)));
    return std::nullopt;
  }
  const YAML::Node key = v.node.begin()->first;
  if (key.IsScalar() && key.Scalar() == "choice") {
    MapReader mr(r, v, std::array<std::string_view, 1>{"choice"});
    const Val c = mr.get("choice");
    MapReader p(r, c, kChoice);
    if (!p.ok()) return std::nullopt;
    const std::size_t before = r.error_count();
    IntDistribution out;
    if (require(r, p.get("values"))) {
      for (const Val& item : read_list(r, p.get("values"))) {
        if (auto x = read_int(r, item, lo, hi)) out.choices.emplace_back(*x, 1.0);
      }
    }
    if (!choice_weights(r, p, c, out.choices) || r.error_count() != before) return std::nullopt;
    return out;
  }
  auto d = duration_dist(r, v, false);
  if (!d) return std::nullopt;
  IntDistribution out;
  out.real = d->seconds;
  // Draws are rounded and clamped to [lo, hi]: say so when the distribution reaches past hi
  // (its bound, or its mean for an unbounded one), rather than change the workload silently.
  bool bounded = true;
  const double top = std::visit(
      [&bounded](const auto& x) -> double {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, kernel::Constant>)
          return x.value;
        else if constexpr (std::is_same_v<T, kernel::Uniform> ||
                           std::is_same_v<T, kernel::BoundedPareto>)
          return x.hi;
        else if constexpr (std::is_same_v<T, kernel::EmpiricalCdf>)
          return x.points.empty() ? 0 : x.points.back().first;
        else {
          bounded = false;
          return x.mean();
        }
      },
      d->seconds.variant());
  if (top > static_cast<double>(hi)) {
    r.warning(v.mark, v.path,
              fmt::format("{} {:g}, above {}; every draw above {} is taken as {}",
                          bounded ? "the distribution reaches" : "the distribution's mean is", top,
                          hi, hi, hi));
  }
  return out;
}

// A name, or {choice: {values: [names], weights: [...]}}, each one of `allowed`.
std::optional<ChoiceDistribution> name_choice(Report& r, const Val& v,
                                              std::span<const std::string_view> allowed) {
  r.tick();
  if (!v.present()) return std::nullopt;
  ChoiceDistribution out;
  if (v.node.IsScalar()) {
    auto x = read_choice(r, v, allowed);
    if (!x) return std::nullopt;
    out.choices.emplace_back(std::move(*x), 1.0);
    return out;
  }
  MapReader mr(r, v, std::array<std::string_view, 1>{"choice"});
  if (!mr.ok()) return std::nullopt;
  const Val c = mr.get("choice");
  if (!require(r, c)) return std::nullopt;
  MapReader p(r, c, kChoice);
  if (!p.ok()) return std::nullopt;
  const std::size_t before = r.error_count();
  if (require(r, p.get("values"))) {
    for (const Val& item : read_list(r, p.get("values"))) {
      if (auto x = read_choice(r, item, allowed)) out.choices.emplace_back(std::move(*x), 1.0);
    }
  }
  if (!choice_weights(r, p, c, out.choices) || r.error_count() != before) return std::nullopt;
  return out;
}

// A real number or one distribution (parameters as numbers), e.g. a hazard per hour.
std::optional<kernel::Distribution> real_dist(Report& r, const Val& v) {
  if (!v.present()) return std::nullopt;
  if (v.node.IsScalar()) {
    // Built in place: moving a Distribution here trips GCC 12's -Wmaybe-uninitialized under
    // the sanitizers (a false positive on the variant's vector alternative).
    if (auto x = read_double(r, v, -kMaxDouble, kMaxDouble))
      return std::optional<kernel::Distribution>(std::in_place, kernel::Constant{*x});
    return std::nullopt;
  }
  if (auto d = duration_dist(r, v, false)) return d->seconds;
  return std::nullopt;
}

std::optional<SimTime> time_point(Report& r, const Val& v) {
  if (auto d = read_duration(r, v)) return SimTime{*d};
  return std::nullopt;
}

}  // namespace t9k::scenarios::detail
