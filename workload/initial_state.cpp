#include "workload/initial_state.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/accelerators.hpp"
#include "scenarios/format/traces.hpp"

namespace t9k::workload {

namespace m = t9k::model;

std::vector<InitialSubmission> initial_submissions(const scenarios::Scenario& sc,
                                                   std::uint64_t replication) {
  std::vector<InitialSubmission> out;
  if (!sc.initial_state || !sc.initial_state->data) return out;
  const auto& st = *sc.initial_state;
  const kernel::RngStreams streams(sc.seed, replication);
  kernel::Rng remaining_rng = streams.stream("initialState/remaining");
  kernel::Rng queued_rng = streams.stream("initialState/queuedRunTime");
  const std::string file = std::filesystem::path(st.data->file).filename().string();
  for (const auto& j : st.data->jobs) {
    InitialSubmission s;
    s.running = j.running;
    s.submission.job = j.job;
    s.submission.submit_time = kernel::SimTime{};
    s.submission.source = fmt::format("{}:{}", file, j.line);
    s.elapsed = kernel::SimDuration{j.elapsed_us};
    m::RunPolicy* run_policy = nullptr;
    if (auto* p = std::get_if<m::PyTorchTrainingJob>(&s.submission.job))
      run_policy = &p->spec.run_policy;
    if (auto* d = std::get_if<m::DeepSpeedJob>(&s.submission.job)) run_policy = &d->spec.run_policy;
    if (j.running) {
      s.pins = j.pins;
      const std::optional<std::int64_t> deadline_s =
          run_policy ? run_policy->active_deadline_seconds : std::nullopt;
      // The deadline counts from the job's start (§5 runPolicy): what is left of it at time zero.
      const std::int64_t left_us =
          deadline_s ? std::max<std::int64_t>(0, *deadline_s * 1000000 - j.elapsed_us) : 0;
      if (deadline_s)
        run_policy->active_deadline_seconds =
            std::max<std::int64_t>(1, (left_us + 999'999) / 1'000'000);
      if (st.remaining.active_deadline && deadline_s) {
        s.remaining = kernel::SimDuration{left_us};
      } else if (st.remaining.distribution) {
        s.remaining = st.remaining.distribution->draw(remaining_rng);
      } else {
        s.remaining = kernel::SimDuration{static_cast<std::int64_t>(
            std::llround(static_cast<double>(j.elapsed_us) * st.remaining.fraction_of_elapsed))};
      }
    } else if (st.queued_run_time) {
      s.remaining = st.queued_run_time->draw(queued_rng);
    }
    s.submission.behaviour.run_time = scenarios::DurationDistribution::constant(s.remaining);
    out.push_back(std::move(s));
  }
  return out;
}

std::string initial_state_csv(const scenarios::Scenario& sc,
                              const std::vector<InitialSubmission>& jobs) {
  const model::Accelerators acc(sc.cluster.accelerators);
  std::string out = "job,kind,queue,state,gpus,elapsed_s,remaining_s,nodes\n";
  for (const auto& s : jobs) {
    const auto& job = s.submission.job;
    auto meta = m::metadata_of(job);
    if (meta.namespace_.empty()) meta.namespace_ = sc.default_namespace;
    const auto& sched = m::scheduler_of(job).t9k_scheduler;
    std::vector<std::string> nodes;
    for (const auto& [pod, node] : s.pins) {
      if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(node);
    }
    const double gpus = static_cast<double>(acc.gpu_milli_of(*model::shape_of(job, acc).requests)) /
                        m::kGpuMilliPerGpu;
    out += fmt::format(
        "{},{},{},{},{},{:.6f},{:.6f},{}\n", model::object_key(meta), m::to_string(m::kind_of(job)),
        sched && sc.scheduler.kind == scenarios::SchedulerKind::T9k ? sched->queue : "",
        s.running ? "Running" : "Waiting", gpus, static_cast<double>(s.elapsed.count()) / 1e6,
        static_cast<double>(s.remaining.count()) / 1e6, fmt::join(nodes, " "));
  }
  return out;
}

}  // namespace t9k::workload
