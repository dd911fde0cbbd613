// How many jobs a scenario submits per replication, estimated before anything runs (the job
// budget of --max-jobs, docs/reliability.md "Scenario budgets").
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "scenarios/format/load.hpp"
#include "scenarios/format/traces.hpp"

namespace t9k::scenarios {

namespace {

double mean_of(const IntDistribution& d) {
  if (d.real) return d.real->mean();
  double sum = 0, weight = 0;
  for (const auto& [v, w] : d.choices) {
    sum += static_cast<double>(v) * w;
    weight += w;
  }
  return weight > 0 ? sum / weight : 0;
}

double mean_or_one(const std::vector<double>& xs) {
  if (xs.empty()) return 1;
  double s = 0;
  for (double x : xs) s += x;
  return s / static_cast<double>(xs.size());
}

}  // namespace

JobEstimate estimate_jobs(const Scenario& sc) {
  JobEstimate est;
  const auto add = [&](std::string path, std::string how, double jobs) {
    est.total += jobs;
    est.sources.push_back({std::move(path), std::move(how), jobs});
  };
  if (!sc.workload.jobs.empty()) {
    add("spec.workload.jobs", fmt::format("{} explicit jobs", sc.workload.jobs.size()),
        static_cast<double>(sc.workload.jobs.size()));
  }
  const SimTime horizon{sc.horizon};
  for (std::size_t i = 0; i < sc.workload.generators.size(); ++i) {
    const auto& g = sc.workload.generators[i];
    const SimTime end = g.stop ? std::min(*g.stop, horizon) : horizon;
    const double hours = end > g.start ? static_cast<double>((end - g.start).count()) / 3.6e9 : 0;
    const auto& a = g.arrivals;
    double arrivals = 0;
    std::string how;
    switch (a.kind) {
      case ArrivalKind::Interarrival: {
        // demandFactor scales the gaps (gap_scale = 1 / factor).
        const double gap_h =
            static_cast<double>(a.interarrival.mean().count()) / 3.6e9 * a.gap_scale;
        arrivals = hours <= 0  ? 0
                   : gap_h > 0 ? hours / gap_h
                               : std::numeric_limits<double>::infinity();
        how = fmt::format("{:.4g} h at a mean gap of {:.4g} s", hours, gap_h * 3600);
        break;
      }
      case ArrivalKind::Poisson:
      case ArrivalKind::Profile: {
        const double rate =
            a.rate_per_hour * mean_or_one(a.hour_of_day) * mean_or_one(a.day_of_week);
        arrivals = rate * hours;
        how = fmt::format("{:.4g} h at {:.4g} per hour", hours, rate);
        break;
      }
      case ArrivalKind::Times:
        arrivals = static_cast<double>(std::count_if(
            a.times.begin(), a.times.end(), [&](SimTime t) { return t >= g.start && t < end; }));
        how = fmt::format("{:.0f} listed times", arrivals);
        break;
    }
    double jobs = arrivals;
    if (g.burst_size) {
      const double burst = std::max(1.0, mean_of(*g.burst_size));
      jobs *= burst;
      how += fmt::format(", bursts of {:.3g}", burst);
    }
    if (g.count && static_cast<double>(*g.count) < jobs) {
      jobs = static_cast<double>(*g.count);
      how += fmt::format(", count {}", *g.count);
    }
    add(fmt::format("spec.workload.generators[{}]", i), std::move(how), jobs);
  }
  for (std::size_t i = 0; i < sc.workload.traces.size(); ++i) {
    const auto& t = sc.workload.traces[i];
    if (!t.data) continue;
    const auto rows = static_cast<double>(std::max(t.data->objects.size(), t.data->records.size()));
    double jobs = rows * t.sample;
    std::string how = fmt::format("{:.0f} rows, sample {}", rows, t.sample);
    if (t.limit && static_cast<double>(*t.limit) < jobs) {
      jobs = static_cast<double>(*t.limit);
      how += fmt::format(", limit {}", *t.limit);
    }
    add(fmt::format("spec.workload.traces[{}]", i), std::move(how), jobs);
  }
  return est;
}

}  // namespace t9k::scenarios
