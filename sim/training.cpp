#include "sim/training.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "kernel/hash.hpp"
#include "model/accelerators.hpp"
#include "scheduler/snapshot.hpp"
#include "sim/store.hpp"

namespace t9k::sim {

using model::LossCause;
using model::PodPhase;

Training::Training(const scenarios::Scenario& scenario, const WorldSettings& settings,
                   kernel::Kernel& kernel, const kernel::RngStreams& streams, Store& store,
                   PodLifecycle& pods, ReconcileQueue& reconciles)
    : sc_(scenario),
      st_(settings),
      k_(kernel),
      streams_(streams),
      store_(store),
      pods_(pods),
      reconciles_(reconciles) {}

void Training::handle(const kernel::DispatchedEvent& e) {
  const auto id = static_cast<JobId>(e.key);
  switch (e.kind) {
    case kTrainingDone:
      done(id);
      break;
    case kSoftwareFailure:
      software_failure(id);
      break;
    case kOrphan:
      orphans(id);
      break;
    case kPodRunEnd:
      run_end(run_ends_.take(e.arg));
      break;
    case kStranded:
      check_stranded(id);
      break;
    default:
      break;
  }
}

Training::JobTraining& Training::at(JobId id) {
  if (slot_[id] == kForgotten)
    throw std::logic_error(fmt::format("training: job {} was forgotten", id));
  return pool_[slot_[id]];
}

const Training::JobTraining& Training::at(JobId id) const {
  if (slot_[id] == kForgotten)
    throw std::logic_error(fmt::format("training: job {} was forgotten", id));
  return pool_[slot_[id]];
}

Training::JobTraining* Training::find(JobId id) {
  return slot_[id] == kForgotten ? nullptr : &pool_[slot_[id]];
}

kernel::Rng& Training::job_rng(JobId id) {
  auto& t = at(id);
  if (!t.rng) t.rng = streams_.stream("jobs/" + store_.job(id).key.str());
  return *t.rng;
}

// A constant draws nothing, so the job's stream is made when a draw first needs it: made later,
// it gives the same draws (its state depends only on its name and the draws taken). A trace's
// jobs, whose run times and restart overheads are constants, never make one: a name built and
// hashed per job.
SimDuration Training::draw(JobId id, const scenarios::DurationDistribution& d) {
  if (const auto fixed = d.fixed()) return *fixed;
  return d.draw(job_rng(id));
}

kernel::Rng& Training::fail_rng(JobId id) {
  auto& t = at(id);
  if (!t.fail_rng) t.fail_rng = streams_.stream("jobs/" + store_.job(id).key.str() + "/failures");
  return *t.fail_rng;
}

void Training::add_job(JobId id, scenarios::JobBehaviour behaviour) {
  if (slot_.size() != id) throw std::logic_error("training: jobs must be added in id order");
  const model::JobShape& shape = store_.job(id).shape;
  slot_.push_back(pool_.acquire());
  auto& t = pool_[slot_.back()];
  // The run time or work is drawn here once; the rest is kept, shared by the jobs whose rest is
  // equal (a trace's jobs differ in their run times only).
  const auto run_time = std::exchange(behaviour.run_time, std::nullopt);
  const auto work = std::exchange(behaviour.work, std::nullopt);
  t.behaviour = recent_behaviours_.share(std::move(behaviour));
  t.ref_n = shape.elastic ? std::max(1, shape.expected) : std::max(1, shape.replicas);
  // Work in units of "1 replica for 1 µs"; run_time is wall time at the initial scale.
  if (run_time) {
    t.work_total = static_cast<double>(draw(id, *run_time).count()) * speedup(id, t.ref_n);
  } else if (work) {
    t.work_total = static_cast<double>(draw(id, *work).count());
  } else {
    t.work_total = std::numeric_limits<double>::infinity();  // runs until stopped
  }
}

std::int64_t Training::ideal_run_us(JobId id) const {
  const auto& t = at(id);
  const double ideal = std::isfinite(t.work_total) ? t.work_total / speedup(id, t.ref_n) : 0;
  return static_cast<std::int64_t>(std::llround(ideal));
}

double Training::speedup(JobId id, std::int32_t n) const {
  const auto& t = at(id);
  const auto& sc = t.behaviour->scaling;
  if (n <= 0) return 0;
  switch (sc.model) {
    case scenarios::ScalingModel::Linear:
      return static_cast<double>(n);
    case scenarios::ScalingModel::Amdahl: {
      const double s = sc.serial_fraction;
      return 1.0 / (s + (1 - s) / static_cast<double>(n));
    }
    case scenarios::ScalingModel::Fixed:
      return static_cast<double>(t.ref_n);
    case scenarios::ScalingModel::Table: {
      const auto& tab = sc.throughput;
      if (tab.empty()) return static_cast<double>(n);
      const auto hi = tab.lower_bound(n);
      if (hi != tab.end() && hi->first == n) return hi->second;
      if (hi == tab.begin()) return hi->second * n / hi->first;  // below the table: proportional
      const auto lo = std::prev(hi);
      if (hi == tab.end()) return lo->second;  // beyond the table: no further gain
      const double f =
          static_cast<double>(n - lo->first) / static_cast<double>(hi->first - lo->first);
      return lo->second + f * (hi->second - lo->second);
    }
  }
  return static_cast<double>(n);
}

// An operation or a late event may still name a forgotten job: it has no pods and no running
// segment, so nothing would change (blame is reset by the evaluate that follows).
void Training::blame(JobId id, LossCause cause) {
  if (auto* t = find(id)) t->pending_cause = cause;
}

void Training::blame_if_unset(JobId id, LossCause cause) {
  auto* t = find(id);
  if (t && !t->pending_cause) t->pending_cause = cause;
}

void Training::evaluate(JobId id) {
  JobTraining* tp = find(id);
  if (!tp) return;
  auto& t = *tp;
  const StoredJob& j = store_.job(id);
  const auto& status = model::status_of(j.job);
  const bool terminal = status.phase && model::is_terminal(*status.phase);
  std::int32_t n = 0;
  bool all_running = true;
  bool debug = false;
  for (const auto& p : j.pods) {
    if (!live(p)) continue;
    if (p.debug) debug = true;
    if (p.phase == PodPhase::Running) {
      ++n;
    } else {
      all_running = false;
    }
  }
  const bool paused = model::run_mode_of(j.job).pause.enabled;
  const std::int32_t required = j.shape.elastic ? std::max(1, j.shape.min) : j.shape.replicas;
  const bool can_run = !terminal && !t.seg.finished && !paused && !debug && n >= required &&
                       n > 0 && (j.shape.elastic ? true : all_running);
  if (t.seg.active && (!can_run || n != t.seg.n)) {
    stop(id, t.pending_cause.value_or(n > t.seg.n ? LossCause::Scale : LossCause::Other));
  }
  t.pending_cause.reset();
  if (!t.seg.active && can_run) {
    // The running pods' GPUs, summed only when a segment starts (most evaluations start none).
    std::int64_t gpu_milli = 0;
    for (const auto& p : j.pods) {
      if (live_and_running(p)) gpu_milli += store_.accelerators().gpu_milli_of(*p.requests);
    }
    start(id, n, gpu_milli);
  }
  if (!can_run && !terminal && !t.stranded_scheduled && !j.shape.elastic) {
    if (auto by = stranded(id)) {
      t.stranded_scheduled = true;
      t.stranded_by = std::move(*by);
      k_.post_in(st_.orphan_timeout, kPhaseWorkload, kStranded, id);
    }
  }
}

// A member failed and no pod replaces it (the controller will not restart it: a permanent
// failure the job survives, such as a worker's under the MasterOnly option, §11 Q7): the running
// pods wait for a peer that never returns.
std::optional<Training::FailedMember> Training::stranded(JobId id) const {
  const StoredJob& j = store_.job(id);
  const auto& status = model::status_of(j.job);
  if (j.shape.elastic || model::run_mode_of(j.job).pause.enabled) return std::nullopt;
  if (status.phase && model::is_terminal(*status.phase)) return std::nullopt;
  bool running = false;
  std::optional<FailedMember> failed;
  for (const auto& p : j.pods) {
    if (live_and_running(p) && !p.debug) running = true;
    // A recreated pod replaces its predecessor under the same name, so a stored Failed pod has
    // no replacement yet.
    if (!failed && p.phase == PodPhase::Failed && !p.deletion_timestamp) {
      failed = FailedMember{scheduler::object_key(p.metadata), p.generation};
    }
  }
  if (!running) return std::nullopt;
  return failed;
}

// The rendezvous timeout after the job was first seen stranded: if it still is, its training
// processes exit (code 1), and its controller decides (restart, backoff, failure).
void Training::check_stranded(JobId id) {
  JobTraining* tp = find(id);
  if (!tp) return;  // finished and compacted since: no pod waits
  auto& t = *tp;
  t.stranded_scheduled = false;
  const auto by = stranded(id);
  // Only the same member, unreplaced all along; a later failure starts its own timeout.
  if (!by) return;
  if (by->pod != t.stranded_by.pod || by->generation != t.stranded_by.generation) {
    t.stranded_scheduled = true;
    t.stranded_by = *by;
    k_.post_in(st_.orphan_timeout, kPhaseWorkload, kStranded, id);
    return;
  }
  const auto keys = training_pods(id);
  for (const auto& key : keys) pods_.terminate(id, key, PodPhase::Failed, 1, LossCause::Other);
  if (!keys.empty()) reconciles_.enqueue(id);
}

std::vector<std::string> Training::training_pods(JobId id) const {
  const StoredJob& j = store_.job(id);
  std::vector<std::string> keys;
  for (const auto& p : j.pods) {
    if (!live(p) || p.debug || p.node_name.empty()) continue;
    if (model::kind_of(j.job) == model::JobKind::DeepSpeedJob && p.rank != 0) continue;
    keys.push_back(scheduler::object_key(p.metadata));
  }
  return keys;
}

void Training::pod_started(JobId id, const std::string& key) {
  if (id >= slot_.size()) return;
  auto& t = at(id);
  const StoredJob& j = store_.job(id);
  const auto& status = model::status_of(j.job);
  if (status.phase && model::is_terminal(*status.phase)) return;
  const model::Pod* p = store_.pod(key);
  if (!p || p->debug) return;
  const auto& b = *t.behaviour;
  const scenarios::ScriptedRun* run = b.scripted_run(p->replica_type, p->rank, p->generation);
  SimDuration in{0};
  std::int32_t code = b.failure.final_exit_code;
  if (run && run->after) {
    in = *run->after;
    code = run->exit_code;
  } else if (t.seg.finished && std::isfinite(t.work_total) &&
             !(model::kind_of(j.job) == model::JobKind::DeepSpeedJob && p->rank != 0)) {
    // A rerun of completed work: from the last checkpoint, at the job's submitted scale.
    const double wall = std::max(0.0, t.work_total - t.rerun_from) / speedup(id, t.ref_n);
    in = draw(id, b.restart_overhead) +
         SimDuration{static_cast<std::int64_t>(std::ceil(std::min(wall, 9e17)))};
    if (run) code = run->exit_code;
  } else {
    return;
  }
  const SimTime at = k_.now() + in;
  if (at > SimTime{sc_.horizon}) return;
  k_.post_at(at, kPhaseWorkload, kPodRunEnd, kernel::hash_string(key),
             run_ends_.park(RunEnd{id, key, p->generation, code}));
}

void Training::run_end(const RunEnd& e) {
  const model::Pod* p = store_.pod(e.pod);
  if (!p || p->generation != e.generation || p->phase != PodPhase::Running || p->deletion_timestamp)
    return;
  pods_.terminate(e.job, e.pod, e.exit_code == 0 ? PodPhase::Succeeded : PodPhase::Failed,
                  e.exit_code, e.exit_code == 0 ? LossCause::Other : LossCause::Software);
  reconciles_.enqueue(e.job);
}

void Training::start(JobId id, std::int32_t n, std::int64_t gpu_milli) {
  auto& t = at(id);
  auto& seg = t.seg;
  seg.active = true;
  seg.n = n;
  seg.gpu_milli = gpu_milli;
  seg.start = k_.now();
  seg.rate = speedup(id, n);
  // A membership change restarts the processes with the elastic rescale overhead (§11 Q8);
  // any other (re)start pays the restart overhead (faults-and-validation §1.5).
  const auto& b = *t.behaviour;
  seg.overhead = t.last_stop_cause == LossCause::Scale ? b.scaling.rescale_overhead
                                                       : draw(id, b.restart_overhead);
  store_.publish(model::TrainingChanged{id, gpu_milli});
  if (!std::isfinite(t.work_total)) {
    schedule_software_failure(id);
    return;
  }
  const double remaining = std::max(0.0, t.work_total - seg.committed);
  const double prod = remaining / seg.rate;  // microseconds of productive time
  std::int64_t checkpoints = 0;
  if (b.checkpoint_interval && b.checkpoint_interval->count() > 0) {
    const double iv = static_cast<double>(b.checkpoint_interval->count());
    checkpoints = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(prod / iv)) - 1);
  }
  const double total =
      static_cast<double>(seg.overhead.count()) + prod +
      static_cast<double>(checkpoints) * static_cast<double>(b.checkpoint_cost.count());
  const SimTime done =
      k_.now() + SimDuration{static_cast<std::int64_t>(std::ceil(std::min(total, 9e17)))};
  if (done <= SimTime{sc_.horizon})
    seg.done_ev = k_.post_at(done, kPhaseWorkload, kTrainingDone, id);
  schedule_software_failure(id);
}

void Training::schedule_software_failure(JobId id) {
  auto& t = at(id);
  const double per_hour =
      t.behaviour->failure.hazard_per_hour + st_.faults.software_failures_per_job_hour;
  if (per_hour <= 0) return;
  const double x = kernel::Exponential(per_hour / 3600e6)(fail_rng(id));
  const SimTime at = k_.now() + SimDuration{std::llround(std::min(x, 9e17))};
  if (at > SimTime{sc_.horizon}) return;
  t.seg.fail_ev = k_.post_at(at, kPhaseWorkload, kSoftwareFailure, id);
}

void Training::software_failure(JobId id) {
  std::vector<std::string> running;
  for (const auto& p : store_.job(id).pods) {
    if (live_and_running(p)) running.push_back(scheduler::object_key(p.metadata));
  }
  if (running.empty()) return;
  auto& rng = fail_rng(id);
  const std::string victim = running[rng.below(running.size())];
  std::int32_t code = 1;
  const auto& mix = at(id).behaviour->failure.exit_codes;
  if (!mix.empty()) {
    std::vector<double> w;
    for (const auto& e : mix) w.push_back(e.weight);
    code = mix[kernel::Categorical(w)(rng)].exit_code;
  }
  pods_.terminate(id, victim, PodPhase::Failed, code, LossCause::Software);
  reconciles_.enqueue(id);
}

Training::Progress Training::progress(const JobTraining& t) const {
  const auto& seg = t.seg;
  const SimTime prod_start = seg.start + seg.overhead;
  if (k_.now() <= prod_start) return {};
  const std::int64_t e = (k_.now() - prod_start).count();
  const auto& b = *t.behaviour;
  if (!b.checkpoint_interval || b.checkpoint_interval->count() <= 0) return {0, e, {}, {}};
  const std::int64_t iv = b.checkpoint_interval->count();
  const std::int64_t cyc = iv + b.checkpoint_cost.count();
  std::int64_t done = e / cyc;
  // The work cannot checkpoint past its end (the job would have finished).
  if (std::isfinite(t.work_total)) {
    const double left = (t.work_total - seg.committed) / seg.rate;
    done = std::min<std::int64_t>(done, static_cast<std::int64_t>(left / static_cast<double>(iv)));
  }
  return {done * iv, std::min(e - done * cyc, iv), prod_start,
          prod_start + SimDuration{done * cyc}};
}

// Stops the running segment: progress since the last checkpoint is lost to `cause`.
void Training::stop(JobId id, LossCause cause) {
  auto& t = at(id);
  auto& seg = t.seg;
  if (!seg.active) return;
  k_.cancel(seg.done_ev);
  k_.cancel(seg.fail_ev);
  seg.active = false;
  t.last_stop_cause = cause;
  const Progress pr = progress(t);
  seg.committed += static_cast<double>(pr.kept_us) * seg.rate;
  if (pr.kept_us > 0)
    store_.publish(model::ProgressCommitted{id, model::gpu_time(pr.kept_us, seg.gpu_milli),
                                            pr.kept_from, pr.kept_until});
  if (pr.since_checkpoint_us > 0) {
    store_.publish(
        model::ProgressLost{id, cause, model::gpu_time(pr.since_checkpoint_us, seg.gpu_milli)});
  }
  store_.publish(model::TrainingChanged{id, 0});
}

void Training::restart(JobId id) {
  auto* t = find(id);
  if (!t || !t->seg.active) return;
  t->pending_cause = LossCause::Scale;
  stop(id, LossCause::Scale);
}

void Training::done(JobId id) {
  auto& t = at(id);
  auto& seg = t.seg;
  k_.cancel(seg.fail_ev);
  const double prod = (t.work_total - seg.committed) / seg.rate;
  store_.publish(model::ProgressCommitted{id, model::gpu_time(std::llround(prod), seg.gpu_milli),
                                          std::min(seg.start + seg.overhead, k_.now()), k_.now()});
  t.rerun_from = seg.committed + static_cast<double>(progress(t).kept_us) * seg.rate;
  seg.committed = t.work_total;
  seg.finished = true;
  seg.active = false;
  store_.publish(model::TrainingChanged{id, 0});
  // The training processes exit: all pods, except DeepSpeed workers other than the launcher,
  // which run sshd (§5), with the final code or their scripted run's; a pod whose scripted run
  // has a time ends then.
  const StoredJob& j = store_.job(id);
  std::vector<std::pair<std::string, std::int32_t>> exits;
  for (const auto& p : j.pods) {
    if (!live_and_running(p)) continue;
    if (model::kind_of(j.job) == model::JobKind::DeepSpeedJob && p.rank != 0) continue;
    const scenarios::ScriptedRun* run =
        t.behaviour->scripted_run(p.replica_type, p.rank, p.generation);
    if (run && run->after) continue;
    exits.emplace_back(scheduler::object_key(p.metadata),
                       run ? run->exit_code : t.behaviour->failure.final_exit_code);
  }
  for (const auto& [key, code] : exits) {
    pods_.terminate(id, key, code == 0 ? PodPhase::Succeeded : PodPhase::Failed, code,
                    LossCause::Other);
  }
  reconciles_.enqueue(id);
}

void Training::job_finished(JobId id) {
  stop(id, LossCause::Other);
  auto& t = at(id);
  if (t.orphan_scheduled) return;
  t.orphan_scheduled = true;
  k_.post_in(st_.orphan_timeout, kPhaseWorkload, kOrphan, id);
}

// Training pods of a finished job lose their peers and exit (torchrun rendezvous timeout);
// DeepSpeed workers other than worker-0 run sshd and stay (§5); debug pods stay (§7.1).
void Training::orphans(JobId id) {
  const auto keys = training_pods(id);
  for (const auto& key : keys) pods_.terminate(id, key, PodPhase::Failed, 1);
  if (!keys.empty()) reconciles_.enqueue(id);
}

// Its segment has stopped and its timers have fired or been cancelled; the slot is reused.
void Training::forget(JobId id) {
  if (slot_[id] == kForgotten) return;
  pool_.release(slot_[id]);
  slot_[id] = kForgotten;
}

TrainingState Training::state(JobId id) const {
  if (slot_[id] == kForgotten) return {};
  const auto& t = at(id);
  const auto& b = *t.behaviour;
  TrainingState s;
  s.training = t.seg.active;
  s.checkpoint_interval = b.checkpoint_interval && b.checkpoint_interval->count() > 0
                              ? b.checkpoint_interval
                              : std::nullopt;
  s.checkpoint_cost = b.checkpoint_cost;
  s.rescale_overhead = b.scaling.rescale_overhead;
  double done = t.seg.committed;
  if (t.seg.active) {
    const SimTime prod_start = t.seg.start + t.seg.overhead;
    const std::int64_t e = k_.now() > prod_start ? (k_.now() - prod_start).count() : 0;
    done += static_cast<double>(e) * t.seg.rate;
    if (s.checkpoint_interval) {
      const std::int64_t cycle = s.checkpoint_interval->count() + b.checkpoint_cost.count();
      s.since_checkpoint = SimDuration{e % cycle};
    }
  }
  if (std::isfinite(t.work_total) && t.work_total > 0)
    s.progress = std::min(1.0, done / t.work_total);
  return s;
}

void Training::finish() {
  for (JobId id = 0; id < slot_.size(); ++id) {
    if (slot_[id] == kForgotten) continue;
    const auto& t = pool_[slot_[id]];
    if (!t.seg.active) continue;
    const Progress pr = progress(t);
    const std::int64_t e = pr.kept_us + pr.since_checkpoint_us;
    if (e > 0) {
      store_.publish(model::ProgressCommitted{id, model::gpu_time(e, t.seg.gpu_milli),
                                              t.seg.start + t.seg.overhead, k_.now()});
    }
  }
}

}  // namespace t9k::sim
