// The scenario types' own functions (scenario.hpp); decoding is in load.cpp and detail/decoder.hpp.
#include "scenarios/format/scenario.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "scenarios/format/detail/names.hpp"

namespace t9k::scenarios {

namespace m = t9k::model;
using namespace detail;

// ---- small public helpers ----

DurationDistribution DurationDistribution::constant(SimDuration d) {
  DurationDistribution r;
  r.seconds = kernel::Constant{static_cast<double>(d.count()) / 1e6};
  return r;
}

SimDuration DurationDistribution::mean() const {
  const double us = seconds.mean() * 1e6;
  if (!std::isfinite(us) || us <= 0) return SimDuration{0};
  if (us >= 9.2e18) return SimDuration{INT64_MAX};
  return SimDuration{static_cast<std::int64_t>(std::llround(us))};
}

namespace {
SimDuration whole_micros(double s) {
  if (!(s > 0)) return SimDuration{0};
  return SimDuration{static_cast<std::int64_t>(std::llround(std::min(s, 1e12) * 1e6))};
}
}  // namespace

SimDuration DurationDistribution::draw(kernel::Rng& rng) const {
  return whole_micros(seconds(rng));
}

std::optional<SimDuration> DurationDistribution::fixed() const {
  const auto* c = std::get_if<kernel::Constant>(&seconds.variant());
  if (!c) return std::nullopt;
  return whole_micros(c->value);
}

bool ControllerPlugin::serves(const model::Job& job) const {
  if (kind != model::JobKind::Plugin) return model::kind_of(job) == kind;
  return model::kind_of(job) == model::JobKind::Plugin &&
         model::api_version_of(job) == api_version && model::kind_name(job) == kind_name;
}

const ScriptedRun* JobBehaviour::scripted_run(std::string_view type, std::int32_t rank,
                                              std::int32_t generation) const {
  const ReplicaScript* pick = nullptr;
  for (const auto& r : replicas) {
    if (r.type != type || (r.rank && *r.rank != rank)) continue;
    if (!pick || (r.rank && !pick->rank)) pick = &r;  // a rank's own entry wins over its type's
  }
  if (!pick || pick->runs.empty()) return nullptr;
  const auto n = std::min<std::size_t>(static_cast<std::size_t>(std::max(generation, 0)),
                                       pick->runs.size() - 1);
  return &pick->runs[n];
}

IntDistribution IntDistribution::constant(std::int64_t v) {
  IntDistribution r;
  r.choices.emplace_back(v, 1.0);
  return r;
}

m::ResourceList NodePool::capacity() const {
  m::ResourceList r = extra_resources;
  r[m::kResourceCpu] = cpu;
  r[m::kResourceMemory] = memory;
  if (gpus_per_node > 0) r[gpu_resource] = m::Quantity::from_units(gpus_per_node);
  return r;
}

std::int32_t Cluster::node_count() const {
  std::int64_t n = 0;
  for (const auto& p : node_pools) n += p.count;
  return static_cast<std::int32_t>(std::min<std::int64_t>(n, INT32_MAX));
}

std::string_view to_string(OperationType t) { return kOperationNames[static_cast<std::size_t>(t)]; }
std::string_view to_string(SchedulerKind k) { return kSchedulerNames[static_cast<std::size_t>(k)]; }
std::string_view to_string(TraceFormat f) { return kTraceFormats[static_cast<std::size_t>(f)]; }
std::string_view to_string(ScalingModel s) { return kScalingModels[static_cast<std::size_t>(s)]; }
std::string_view to_string(ArrivalKind k) {
  constexpr std::string_view kNames[] = {"interarrival", "rate", "profile", "times"};
  return kNames[static_cast<std::size_t>(k)];
}

}  // namespace t9k::scenarios
