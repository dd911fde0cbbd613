#include "sim/workload.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace t9k::sim {

using kernel::SimDuration;
using kernel::SimTime;

GeneratorCursor::GeneratorCursor(const scenarios::GeneratorEntry& g, const kernel::RngStreams& streams,
                                 SimTime horizon)
    : g_(&g), arrivals_(streams.stream("generators/" + g.name + "/arrivals")), horizon_(horizon), t_(g.start) {
  const auto& name = model::metadata_of(g.template_job).name;
  base_ = name.empty() ? g.name : name;
}

std::optional<scenarios::JobSubmission> GeneratorCursor::next() {
  if (done_ || (g_->count && index_ >= *g_->count)) return std::nullopt;
  const double gap = std::max(0.0, g_->interarrival.seconds(arrivals_));
  t_ += SimDuration{static_cast<std::int64_t>(std::llround(std::min(gap, 1e12) * 1e6))};
  if (t_ > horizon_ || (g_->stop && t_ > *g_->stop)) {
    done_ = true;
    return std::nullopt;
  }
  scenarios::JobSubmission s;
  s.job = g_->template_job;
  model::metadata_of(s.job).name = fmt::format("{}-{}", base_, index_);
  s.submit_time = t_;
  s.behaviour = g_->behaviour;
  s.source = "generator " + g_->name;
  ++index_;
  return s;
}

std::vector<std::unique_ptr<SubmissionSource>> workload_sources(const scenarios::Scenario& sc,
                                                                std::uint64_t replication) {
  std::vector<std::unique_ptr<SubmissionSource>> out;
  const kernel::RngStreams streams(sc.seed, replication);
  for (const auto& g : sc.workload.generators) {
    out.push_back(std::make_unique<GeneratorCursor>(g, streams, SimTime{sc.horizon}));
  }
  return out;
}

std::vector<scenarios::JobSubmission> expand_generators(const scenarios::Scenario& sc, std::uint64_t replication) {
  std::vector<scenarios::JobSubmission> out;
  for (auto& source : workload_sources(sc, replication)) {
    while (auto s = source->next()) out.push_back(std::move(*s));
  }
  // Submission order, as the world submits them (ties by name; see World).
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.submit_time < b.submit_time; });
  return out;
}

scenarios::Scenario with_expanded_workload(const scenarios::Scenario& sc, std::uint64_t replication) {
  scenarios::Scenario copy = sc;
  auto generated = expand_generators(sc, replication);
  for (auto& s : generated) copy.workload.jobs.push_back(std::move(s));
  copy.workload.generators.clear();
  return copy;
}

}  // namespace t9k::sim
