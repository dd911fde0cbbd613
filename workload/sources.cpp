#include "workload/sources.hpp"
#include "workload/generator.hpp"
#include "workload/trace_cursor.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace t9k::workload {

using kernel::SimDuration;
using kernel::SimTime;

std::vector<std::unique_ptr<SubmissionSource>> workload_sources(const scenarios::Scenario& sc,
                                                                std::uint64_t replication) {
  std::vector<std::unique_ptr<SubmissionSource>> out;
  const kernel::RngStreams streams(sc.seed, replication);
  for (const auto& g : sc.workload.generators) {
    out.push_back(
        std::make_unique<GeneratorCursor>(g, streams, SimTime{sc.horizon}, sc.default_namespace));
  }
  for (const auto& t : sc.workload.traces) {
    out.push_back(std::make_unique<TraceCursor>(t, streams, SimTime{sc.horizon},
                                                sc.scheduler.kind == scenarios::SchedulerKind::T9k,
                                                sc.default_namespace));
  }
  return out;
}

std::string submission_key(const scenarios::JobSubmission& s,
                           const std::string& default_namespace) {
  const auto& m = model::metadata_of(s.job);
  return model::object_key(
      m.namespace_.empty() ? std::string_view(default_namespace) : m.namespace_.view(), m.name);
}

std::vector<scenarios::JobSubmission> expand_generators(const scenarios::Scenario& sc,
                                                        std::uint64_t replication) {
  std::vector<scenarios::JobSubmission> out;
  for (auto& source : workload_sources(sc, replication)) {
    while (auto s = source->next()) out.push_back(std::move(*s));
  }
  // Submission order, as the world submits them: by (submit time, job key).
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    return a.submit_time != b.submit_time
               ? a.submit_time < b.submit_time
               : submission_key(a, sc.default_namespace) < submission_key(b, sc.default_namespace);
  });
  return out;
}

scenarios::Scenario with_expanded_workload(const scenarios::Scenario& sc,
                                           std::uint64_t replication) {
  scenarios::Scenario copy = sc;
  auto generated = expand_generators(sc, replication);
  for (auto& s : generated) copy.workload.jobs.push_back(std::move(s));
  copy.workload.generators.clear();
  copy.workload.traces.clear();  // expand_generators pulls trace sources too
  return copy;
}

}  // namespace t9k::workload
