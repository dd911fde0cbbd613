// `t9ksim fit` (docs/forecast.md "`t9ksim fit`"): a generator fitted to a cluster export's
// history, for the new jobs of a forecast. Arrivals: a Poisson profile whose rate is the
// export's jobs per hour, with an hour-of-day multiplier per UTC hour (and a day-of-week one when
// the history covers two weeks) and weekOffset set so time zero falls at the export's time of
// week. Mix: one class per (kind, queue, pods, GPUs per pod), weighted by its jobs, its template
// the class's latest job, its run time a lognormal fitted to its finished jobs' run times.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/format/traces.hpp"

namespace t9k::workload {

struct FitResult {
  std::string yaml;  // "- name: ...": one entry of spec.workload.generators, at `indent`
  std::vector<std::string> notes;  // what the fit assumed, for the command to print
  // Where the evidence is thin (few jobs, a short history, classes with few finished jobs), with
  // the sample sizes: for the command to say as warnings.
  std::vector<std::string> cautions;
  std::vector<std::string> class_notes;  // one line per class: its share, size and run time
  std::int64_t jobs = 0;                 // jobs it was fitted to
  std::int64_t classes = 0;
};

// `data` is a k8s-export trace (scenarios::load_trace). `at_us`: time zero (the export's time).
// Throws std::runtime_error saying why when the export has too little to fit.
// A class with fewer finished jobs than this takes the run times of all finished jobs (pooled);
// fewer jobs than kThinJobs, or a history shorter than a week, is a caution.
inline constexpr std::size_t kMinClassRuns = 3;
inline constexpr std::size_t kThinJobs = 30;

FitResult fit_generator(const scenarios::TraceData& data, std::int64_t at_us,
                        const std::string& name, int indent);

}  // namespace t9k::workload
