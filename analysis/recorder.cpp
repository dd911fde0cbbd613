#include "analysis/recorder.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "analysis/statistics.hpp"

namespace t9k::analysis {

namespace {
constexpr std::int64_t kHourUs = 3600LL * 1000000LL;

double mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

bool fits_int64(Int128 v) {
  return v >= std::numeric_limits<std::int64_t>::min() &&
         v <= std::numeric_limits<std::int64_t>::max();
}

// An integer as a double, through int64 when it fits: the same rounding the 64-bit figures had.
double to_double(Int128 v) {
  return fits_int64(v) ? static_cast<double>(static_cast<std::int64_t>(v)) : static_cast<double>(v);
}
}  // namespace

double gpu_value(Int128 milli) {
  if (fits_int64(
          milli)) {  // the same values in 64-bit arithmetic: 128-bit division is a library call
    const auto m = static_cast<std::int64_t>(milli);
    if (m % model::kGpuMilliPerGpu == 0) return static_cast<double>(m / model::kGpuMilliPerGpu);
    return static_cast<double>(m) / static_cast<double>(model::kGpuMilliPerGpu);
  }
  if (milli % model::kGpuMilliPerGpu == 0) return to_double(milli / model::kGpuMilliPerGpu);
  return to_double(milli) / static_cast<double>(model::kGpuMilliPerGpu);
}

std::string int128_to_string(Int128 v) {
  if (fits_int64(v)) return std::to_string(static_cast<std::int64_t>(v));
  // Digits of |v| from the last, without negating v (the minimum has no positive counterpart).
  std::string digits;
  const bool negative = v < 0;
  do {
    const int d = static_cast<int>(v % 10);
    digits.push_back(static_cast<char>('0' + (negative ? -d : d)));
    v /= 10;
  } while (v != 0);
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

std::string format_gpu_milli(Int128 milli) {
  const Int128 whole = milli / model::kGpuMilliPerGpu;
  Int128 frac = milli % model::kGpuMilliPerGpu;
  if (frac == 0) return int128_to_string(whole);
  std::string out = milli < 0 ? "-" : "";
  out += int128_to_string(whole < 0 ? -whole : whole);
  if (frac < 0) frac = -frac;
  std::string f = fmt::format("{:03d}", static_cast<int>(frac));
  while (f.back() == '0') f.pop_back();
  return out + "." + f;
}

Int128 JobRow::idle_gpu_milli_us() const {
  Int128 r = allocated_gpu_milli_us - productive_gpu_milli_us;
  for (auto l : lost_gpu_milli_us) r -= l;
  return r;
}

SimDuration Recorder::choose_bucket(SimDuration horizon, int max_points) {
  static const SimDuration kLadder[] = {
      kernel::seconds(10), kernel::minutes(1), kernel::minutes(5), kernel::minutes(10),
      kernel::minutes(15), kernel::minutes(30), kernel::hours(1), kernel::hours(2),
      kernel::hours(6), kernel::hours(12), kernel::days(1), kernel::days(7),
      // Horizons of decades to centuries (up to spec.horizon's 1,000 years): a bounded series.
      kernel::days(30), kernel::days(365), kernel::days(3650)};
  for (const auto& b : kLadder) {
    if (horizon.count() / b.count() <= max_points) return b;
  }
  return kernel::days(3650);
}

Recorder::Recorder(SimTime horizon, SimDuration bucket)
    : horizon_(horizon),
      bucket_(bucket),
      nbuckets_(static_cast<std::size_t>((horizon.time_since_epoch().count() + bucket.count() - 1) /
                                         bucket.count())),
      occupancy_(horizon, bucket) {
  if (nbuckets_ == 0) nbuckets_ = 1;
}

void Recorder::advance(Level& l, SimTime t) {
  if (t <= l.since) return;
  if (l.buckets.empty()) l.buckets.assign(nbuckets_, 0);
  std::int64_t a = l.since.time_since_epoch().count();
  const std::int64_t b = std::min(t, horizon_).time_since_epoch().count();
  if (l.value != 0) {
    l.area += static_cast<Int128>(l.value) * (b - a);
    const std::int64_t w = bucket_.count();
    while (a < b) {
      const auto i = static_cast<std::size_t>(a / w);
      const std::int64_t end = std::min(b, static_cast<std::int64_t>(i + 1) * w);
      if (i < l.buckets.size()) l.buckets[i] += static_cast<Int128>(l.value) * (end - a);
      a = end;
    }
  }
  l.since = t;
}

void Recorder::set(Level& l, SimTime t, std::int64_t v) {
  advance(l, t);
  l.value = v;
}

void Recorder::spread(Level& l, SimTime from, SimTime until, Int128 area) {
  if (area == 0) return;
  if (l.buckets.empty()) l.buckets.assign(nbuckets_, 0);
  l.area += area;
  const std::int64_t w = bucket_.count();
  const std::int64_t end = horizon_.time_since_epoch().count();
  const std::int64_t a0 = std::clamp<std::int64_t>(from.time_since_epoch().count(), 0, end);
  const std::int64_t b = std::clamp<std::int64_t>(until.time_since_epoch().count(), a0, end);
  if (b == a0) {  // an instant: all of it in its bucket
    l.buckets[std::min(static_cast<std::size_t>(a0 / w), nbuckets_ - 1)] += area;
    return;
  }
  // Cumulative shares, so the buckets add up to `area` exactly.
  const Int128 span = b - a0;
  Int128 given = 0;
  for (std::int64_t a = a0; a < b;) {
    const auto i = static_cast<std::size_t>(a / w);
    const std::int64_t stop = std::min(b, static_cast<std::int64_t>(i + 1) * w);
    const Int128 upto = area * (stop - a0) / span;
    l.buckets[std::min(i, nbuckets_ - 1)] += upto - given;
    given = upto;
    a = stop;
  }
}

Recorder::Scope& Recorder::scope(const std::string& queue) { return scopes_[queue]; }

void Recorder::stream_rows(std::function<void(const JobRow&)> sink) {
  if (!jobs_.empty() || base_ != 0)
    throw std::logic_error("recorder: stream_rows after the first job");
  streaming_ = true;
  sink_ = std::move(sink);
}

const std::deque<JobRow>& Recorder::jobs() const {
  if (streaming_) throw std::logic_error("recorder: the rows were streamed, not kept");
  return jobs_;
}

JobRow& Recorder::row(model::JobId id) {
  if (id < base_)
    throw std::logic_error(fmt::format("recorder: a change for job {}, which had left", id));
  return jobs_.at(id - base_);
}

Recorder::JobState& Recorder::state(model::JobId id) {
  if (id < base_)
    throw std::logic_error(fmt::format("recorder: a change for job {}, which had left", id));
  return state_.at(id - base_);
}

void Recorder::retire_front() {
  const JobRow& r = jobs_[retired_ - base_];
  add_figures(retired_figures_, r);
  if (!r.name.empty()) {
    // Sojourn sums for Little's law.
    const SimTime end = r.end.value_or(horizon_);
    const std::int64_t soj = (std::min(end, horizon_) - r.submit).count();
    cluster_.sojourn_us += soj;
    state_[retired_ - base_].scope->sojourn_us += soj;  // the row's queue's scope
    if (sink_) sink_(r);
  }
  ++retired_;
  if (streaming_) {
    jobs_.pop_front();
    state_.pop_front();
    ++base_;
  }
}

void Recorder::retire_final() {
  if (!streaming_) return;  // kept rows are retired by finish()
  while (!jobs_.empty() && state_.front().final) retire_front();
}

std::string pending_cause_metric(model::PendingCause c) {
  static constexpr const char* kNames[] = {"quota",      "capacity",    "constraints",
                                           "preempting", "queue_order", "gang_members"};
  return kNames[static_cast<std::size_t>(c)];
}

// The job waits under `cause` from t on (nullopt: it no longer waits): closes the interval of the
// previous cause into the job's pending_us and moves the per-cause job counts.
void Recorder::wait_cause(JobRow& row, SimTime t, std::optional<model::PendingCause> cause) {
  JobState& js = state(row.id);
  if (js.waiting == cause) return;
  if (js.waiting) {
    row.pending_us[static_cast<int>(*js.waiting)] += (t - js.waiting_since).count();
    for (Scope* s : {&cluster_, js.scope}) {
      Level& l = s->pending_by_cause[static_cast<int>(*js.waiting)];
      set(l, t, l.value - 1);
    }
  }
  js.waiting = cause;
  js.waiting_since = t;
  if (cause) {
    for (Scope* s : {&cluster_, js.scope}) {
      Level& l = s->pending_by_cause[static_cast<int>(*cause)];
      set(l, t, l.value + 1);
    }
  }
}

void Recorder::job_state(JobRow& row, SimTime t, bool in_system, bool running) {
  JobState& js = state(row.id);
  const auto delta = [](bool now, bool before) {
    return static_cast<std::int64_t>(now) - static_cast<std::int64_t>(before);
  };
  const bool pending = in_system && !running;
  const bool was_pending = js.in_system && !js.running;
  for (Scope* s : {&cluster_, js.scope}) {
    set(s->in_system, t, s->in_system.value + delta(in_system, js.in_system));
    set(s->running, t, s->running.value + delta(running, js.running));
    set(s->pending, t, s->pending.value + delta(pending, was_pending));
  }
  js.in_system = in_system;
  js.running = running;
}

void Recorder::on_change(const model::TimedChange& tc) {
  const SimTime t = tc.time;
  std::visit(
      [&](const auto& c) {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, model::JobSubmitted>) {
          if (c.job < base_)
            throw std::logic_error(fmt::format("recorder: job {} submitted after it left", c.job));
          if (base_ + jobs_.size() <= c.job) {
            jobs_.resize(c.job + 1 - base_);
            state_.resize(c.job + 1 - base_);
          }
          JobRow& r = row(c.job);
          state(c.job).scope = &scope(c.queue);
          r.id = c.job;
          r.name = c.name;
          r.kind = c.kind == model::JobKind::Plugin ? model::interned_kind(c.plugin_kind)
                                                    : model::to_string(c.kind);
          r.queue = c.queue;
          r.priority = c.priority;
          r.replicas = c.replicas;
          r.gpu_milli = c.gpu_milli;
          r.elastic = c.elastic;
          r.submit = t;
          r.ideal_run_us = c.ideal_run_us;
          r.phase = std::string_view("Pending");
          job_state(r, t, true, false);
        } else if constexpr (std::is_same_v<T, model::JobRejected>) {
          JobRow& r = row(c.job);
          r.phase = std::string_view("Rejected");
          r.reason = c.reason;
          r.end = t;
          wait_cause(r, t, std::nullopt);
          job_state(r, t, false, false);
          state(c.job).final = true;  // a rejected job never gets a pod
          retire_final();
        } else if constexpr (std::is_same_v<T, model::JobLeft>) {
          state(c.job).final = true;
          retire_final();
        } else if constexpr (std::is_same_v<T, model::JobPhaseChanged>) {
          JobRow& r = row(c.job);
          r.phase = model::to_string(c.phase);  // a static name
          r.restarts = c.restarts;
          r.backoff_count = c.backoff_count;
          if (c.phase == model::JobPhase::Running && !r.first_running) r.first_running = t;
          if (model::is_terminal(c.phase)) {
            // A job that ended before a reconcile saw it Running still waited until its first
            // pod ran (docs/outputs.md, wait_s).
            if (!r.first_running) r.first_running = state(c.job).first_pod_running;
            r.end = t;
            if (c.message.empty())
              r.reason = c.reason;
            else
              r.reason = std::string(c.reason).append(": ").append(c.message.view());
            wait_cause(r, t, std::nullopt);
            job_state(r, t, false, false);
          } else {
            // A paused job does not wait for the scheduler (its pods are gone on purpose).
            if (c.phase == model::JobPhase::Paused) wait_cause(r, t, std::nullopt);
            job_state(r, t, true, c.phase == model::JobPhase::Running);
          }
        } else if constexpr (std::is_same_v<T, model::PodBound>) {
          JobState& js = state(c.job);
          ++js.bound_pods;
          js.bound_gpu_milli += c.gpu_milli;
          js.bound_since_area += static_cast<Int128>(t.time_since_epoch().count()) * c.gpu_milli;
          wait_cause(row(c.job), t, std::nullopt);
          for (Scope* s : {&cluster_, js.scope})
            set(s->allocated, t, s->allocated.value + c.gpu_milli);
          occupancy_.pod(t, c.node, c.queue, c.gpu_milli);
          cost_bound(js, c.node, c.gpu_milli, t);
        } else if constexpr (std::is_same_v<T, model::PodReleased>) {
          JobRow& r = row(c.job);
          JobState& js = state(c.job);
          if (js.bound_pods > 0) {  // the store releases only what it bound
            const Int128 held = static_cast<Int128>((t - c.bound_at).count()) * c.gpu_milli;
            r.allocated_gpu_milli_us += held;
            total_allocated_ += held;
            for (Scope* s : {&cluster_, js.scope})
              set(s->allocated, t, s->allocated.value - c.gpu_milli);
            occupancy_.pod(t, c.node, c.queue, -c.gpu_milli);
            cost_released(r, js, c.node, c.gpu_milli, t, c.bound_at);
            --js.bound_pods;
            js.bound_gpu_milli -= c.gpu_milli;
            js.bound_since_area -=
                static_cast<Int128>(c.bound_at.time_since_epoch().count()) * c.gpu_milli;
            if (js.bound_pods == 0 && js.bound_rates) *js.bound_rates = {};  // no rounding left
          }
          if (c.phase == model::PodPhase::Failed) ++r.pods_failed;
        } else if constexpr (std::is_same_v<T, model::PodRunning>) {
          auto& first = state(c.job).first_pod_running;
          if (!first) first = t;
        } else if constexpr (std::is_same_v<T, model::PodDeleted>) {
          if (c.reason == model::DeletionReason::Preemption) ++row(c.job).preemptions;
        } else if constexpr (std::is_same_v<T, model::ProgressLost>) {
          row(c.job).lost_gpu_milli_us.add(static_cast<int>(c.cause), c.gpu_milli_us);
        } else if constexpr (std::is_same_v<T, model::ProgressCommitted>) {
          row(c.job).productive_gpu_milli_us += c.gpu_milli_us;
          total_productive_ += c.gpu_milli_us;
          // Drawn where it was made, once kept: the series agrees with the headline (issue 48).
          for (Scope* s : {&cluster_, state(c.job).scope})
            spread(s->productive, c.from, c.until, c.gpu_milli_us);
        } else if constexpr (std::is_same_v<T, model::NodeChanged>) {
          const bool ready = c.ready && c.cause != "removed";
          node_ready_[c.node] = ready;
          costing_.node(t, c.node, c.cause == "removed");
          const std::int64_t before = node_gpu_milli_[c.node];
          const std::int64_t after = ready ? c.gpu_milli : 0;
          node_gpu_milli_[c.node] = after;
          set(capacity_, t, capacity_.value - before + after);
          // Down capacity by cause: what the node has when whole minus what is ready now. A
          // removed node leaves the installed capacity (a plan, not a loss).
          NodeInstalled& ni = node_installed_[c.node];
          const std::int64_t down_before = ni.installed - before;
          if (c.cause == "removed") {
            ni.installed = 0;
          } else {
            ni.installed = std::max(ni.installed, after);
          }
          const std::int64_t down_after = ni.installed - after;
          if (down_before > 0) {
            Level& l = down_[ni.cause];
            set(l, t, l.value - down_before);
          }
          if (down_after > 0 && c.cause != "repair" && c.cause != "added") ni.cause = c.cause;
          if (down_after > 0) {
            if (ni.cause.empty()) ni.cause = "other";
            Level& l = down_[ni.cause];
            set(l, t, l.value + down_after);
          }
          if (c.cause != "added" && c.cause != "cordon" && c.cause != "uncordon") {
            faults_.push_back(FaultRecord{t, c.node, c.cause, c.cause != "repair"});
          }
          occupancy_.node(t, c.node, after, ni.installed, c.unschedulable);
        } else if constexpr (std::is_same_v<T, model::QueueChanged>) {
          scope(c.queue);
        } else if constexpr (std::is_same_v<T, model::JobPending>) {
          JobRow& r = row(c.job);
          if (r.end) return;  // the last reason of a job that ended waiting came before its end
          r.pending_cause = c.cause;
          r.pending_reason = c.message;
          wait_cause(r, t, c.cause);
        }
      },
      tc.change);
}

void Recorder::finish() {
  if (finished_) return;
  finished_ = true;
  occupancy_.finish();
  // Pods still bound hold their GPUs until the horizon.
  for (std::size_t i = 0; i < state_.size(); ++i) {
    const JobState& js = state_[i];
    if (js.bound_pods == 0) continue;
    const Int128 held =
        static_cast<Int128>(horizon_.time_since_epoch().count()) * js.bound_gpu_milli -
        js.bound_since_area;
    total_allocated_ += held;
    jobs_[i].allocated_gpu_milli_us += held;
    Costing::Rate rest;
    if (js.bound_rates) {
      rest = js.bound_rates->rate * static_cast<double>(horizon_.time_since_epoch().count());
      rest -= js.bound_rates->area;
    }
    charge(jobs_[i], rest);
  }
  costing_.finish(horizon_);
  for (auto* s : {&cluster_}) {
    for (Level* l : {&s->allocated, &s->productive, &s->pending, &s->running, &s->in_system})
      advance(*l, horizon_);
  }
  for (auto& [name, s] : scopes_) {
    for (Level* l : {&s.allocated, &s.productive, &s.pending, &s.running, &s.in_system})
      advance(*l, horizon_);
    for (Level& l : s.pending_by_cause) advance(l, horizon_);
  }
  for (Level& l : cluster_.pending_by_cause) advance(l, horizon_);
  // Jobs still waiting wait until the horizon.
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    JobRow& r = jobs_[i];
    const JobState& js = state_[i];
    if (r.name.empty()) continue;
    if (js.waiting)
      r.pending_us[static_cast<int>(*js.waiting)] += (horizon_ - js.waiting_since).count();
  }
  advance(capacity_, horizon_);
  capacity_area_ = capacity_.area;
  for (auto& [cause, l] : down_) advance(l, horizon_);
  // The rows still held, in JobId order: figures, sojourn sums, the sink.
  while (retired_ < base_ + jobs_.size()) retire_front();
  // Series.
  const double w = static_cast<double>(bucket_.count());
  auto points = [&](const Scope& s, bool with_capacity) {
    std::vector<SeriesPoint> v(nbuckets_);
    // Job counts as they are; milli-GPU levels in GPUs.
    auto at = [](const Level& l, std::size_t i) {
      return l.buckets.empty() ? 0.0 : to_double(l.buckets[i]);
    };
    auto gpus_at = [](const Level& l, std::size_t i) {
      return l.buckets.empty() ? 0.0 : gpu_value(l.buckets[i]);
    };
    for (std::size_t i = 0; i < nbuckets_; ++i) {
      // The last bucket may be shorter than the others.
      const std::int64_t b0 = static_cast<std::int64_t>(i) * bucket_.count();
      const double width =
          std::min(w, static_cast<double>(horizon_.time_since_epoch().count() - b0));
      v[i].allocated_gpus = gpus_at(s.allocated, i) / width;
      v[i].productive_gpus = gpus_at(s.productive, i) / width;
      v[i].pending_jobs = at(s.pending, i) / width;
      v[i].running_jobs = at(s.running, i) / width;
      v[i].capacity_gpus = with_capacity ? gpus_at(capacity_, i) / width : 0;
      for (int c = 0; c < model::kPendingCauses; ++c)
        v[i].pending_by_cause[c] = at(s.pending_by_cause[c], i) / width;
    }
    return v;
  };
  series_["cluster"] = points(cluster_, true);
  for (const auto& [name, s] : scopes_) {
    if (!name.empty()) series_["queue:" + name] = points(s, false);
  }
  if (scopes_.count("")) series_["default-scheduler"] = points(scopes_.at(""), false);
}

Recorder::JobFigures::JobFigures(const JobRow& r) {
  if (r.phase == "Succeeded")
    outcome = Outcome::Succeeded;
  else if (r.phase == "Failed")
    outcome = Outcome::Failed;
  else if (r.phase == "Rejected")
    outcome = Outcome::Rejected;
  alloc = gpu_value(r.allocated_gpu_milli_us);
  prod = gpu_value(r.productive_gpu_milli_us);
  for (int i = 0; i < model::kLossCauses; ++i) lost[i] = gpu_value(r.lost_gpu_milli_us[i]);
  idle = gpu_value(r.idle_gpu_milli_us());
}

void Recorder::Figures::add(const JobRow& r, const JobFigures& x, SimTime horizon) {
  ++submitted;
  const bool rejected_job = x.outcome == JobFigures::Outcome::Rejected;
  switch (x.outcome) {
    case JobFigures::Outcome::Succeeded:
      ++succeeded;
      break;
    case JobFigures::Outcome::Failed:
      ++failed;
      break;
    case JobFigures::Outcome::Rejected:
      ++rejected;
      break;
    case JobFigures::Outcome::Unfinished:
      ++unfinished;
      break;
  }
  if (r.first_running) {
    const double w = static_cast<double>((*r.first_running - r.submit).count()) / 1e6;
    wait_sum += w;
    ++waits;
    waits_censored.push_back(w);
  } else if (!rejected_job) {
    // Never started: it waited at least until it ended or the horizon, so a starving queue's
    // percentiles show its starvation instead of only the lucky jobs that started.
    ++never_started;
    waits_censored.push_back(static_cast<double>((r.end.value_or(horizon) - r.submit).count()) /
                             1e6);
  }
  if (r.end && !rejected_job) {
    const double jct = static_cast<double>((*r.end - r.submit).count()) / 1e6;
    jcts.push_back(jct);
    if (r.ideal_run_us > 0) {
      slowdown_sum += jct / (static_cast<double>(r.ideal_run_us) / 1e6);
      ++slowdowns;
    }
  }
  alloc += x.alloc;
  prod += x.prod;
  cost += r.cost;
  energy_kwh += r.energy_kwh;
  for (int i = 0; i < model::kLossCauses; ++i) lost[i] += x.lost[i];
  idle += x.idle;
  for (int i = 0; i < model::kPendingCauses; ++i)
    pending[i] += static_cast<double>(r.pending_us[i]);
}

void Recorder::Figures::write(std::map<std::string, double>& m, const std::string& prefix) const {
  // Means are running sums in JobId order, as the mean of the kept values was.
  const auto mean_of = [](double sum, std::int64_t n) {
    return n == 0 ? 0.0 : sum / static_cast<double>(n);
  };
  m[prefix + "jobs_submitted"] = submitted;
  m[prefix + "jobs_succeeded"] = succeeded;
  m[prefix + "jobs_failed"] = failed;
  m[prefix + "jobs_rejected"] = rejected;
  m[prefix + "jobs_unfinished"] = unfinished;
  m[prefix + "jobs_never_started"] = never_started;
  // Exact percentiles by selection (statistics.hpp): sorting every value was a visible share of a
  // short run's time.
  m[prefix + "wait_mean_s"] = mean_of(wait_sum, waits);
  static constexpr std::array kWaitPs{0.5, 0.9, 0.99};
  const std::vector<double> wait_p =
      percentiles(std::vector<double>(waits_censored.begin(), waits_censored.end()), kWaitPs);
  m[prefix + "wait_p50_s"] = wait_p[0];
  m[prefix + "wait_p90_s"] = wait_p[1];
  m[prefix + "wait_p99_s"] = wait_p[2];
  std::vector<double> jct(jcts.begin(), jcts.end());
  m[prefix + "jct_mean_s"] = mean(jct);  // in JobId order, as it always was summed
  static constexpr std::array kJctPs{0.5, 0.9};
  const std::vector<double> jct_p = percentiles(std::move(jct), kJctPs);
  m[prefix + "jct_p50_s"] = jct_p[0];
  m[prefix + "jct_p90_s"] = jct_p[1];
  m[prefix + "slowdown_mean"] = mean_of(slowdown_sum, slowdowns);
  m[prefix + "gpu_hours_allocated"] = alloc / kHourUs;
  m[prefix + "gpu_hours_productive"] = prod / kHourUs;
  for (int i = 0; i < model::kLossCauses; ++i) {
    m[fmt::format("{}gpu_hours_lost_{}", prefix,
                  model::to_string(static_cast<model::LossCause>(i)))] = lost[i] / kHourUs;
  }
  m[prefix + "gpu_hours_idle"] = idle / kHourUs;
  for (int i = 0; i < model::kPendingCauses; ++i)
    m[prefix + "job_hours_pending_" + pending_cause_metric(static_cast<model::PendingCause>(i))] =
        pending[i] / kHourUs;
}

namespace {

// "namespace/prefix-17" -> "prefix" when that is a generator class's prefix.
const std::string* class_of(std::string_view job_name, const std::set<std::string>& prefixes) {
  if (prefixes.empty()) return nullptr;
  const auto slash = job_name.find('/');
  std::string_view n(job_name);
  if (slash != std::string_view::npos) n.remove_prefix(slash + 1);
  const auto dash = n.rfind('-');
  if (dash == std::string_view::npos || dash + 1 == n.size()) return nullptr;
  if (!std::all_of(n.begin() + static_cast<std::ptrdiff_t>(dash) + 1, n.end(),
                   [](char c) { return c >= '0' && c <= '9'; })) {
    return nullptr;
  }
  const auto it = prefixes.find(std::string(n.substr(0, dash)));
  return it == prefixes.end() ? nullptr : &*it;
}

}  // namespace

void Recorder::set_groups(RecorderGroups groups) {
  class_prefixes_ =
      std::set<std::string>(groups.class_prefixes.begin(), groups.class_prefixes.end());
  queue_quota_gpu_milli_ = std::move(groups.queue_quota_gpu_milli);
  occupancy_.set_layout(std::move(groups.node_rows));
  costing_.set_rates(std::move(groups.node_rates));
}

void Recorder::cost_bound(JobState& js, const std::string& node, std::int64_t gpu_milli,
                          SimTime t) {
  if (!costing_.active()) return;  // nothing on the hot path of a run without prices or power
  const Costing::Rate rate = costing_.rate(node, gpu_milli);
  js.rates().rate += rate;
  js.rates().area += rate * static_cast<double>(t.time_since_epoch().count());
}

void Recorder::cost_released(JobRow& r, JobState& js, const std::string& node,
                             std::int64_t gpu_milli, SimTime t, SimTime bound_at) {
  if (!costing_.active()) return;
  const Costing::Rate rate = costing_.rate(node, gpu_milli);
  charge(r, rate * static_cast<double>((t - bound_at).count()));
  js.rates().rate -= rate;
  js.rates().area -= rate * static_cast<double>(bound_at.time_since_epoch().count());
}

void Recorder::charge(JobRow& r, const Costing::Rate& c) {
  r.cost += c.cost;
  r.energy_kwh += c.busy_kwh;
  costing_.held(c);
}

void Recorder::write_cost(std::map<std::string, double>& m, const std::string& prefix,
                          const Figures& g) const {
  if (costing_.priced()) {
    m[prefix + "cost_allocated"] = g.cost;
    m[prefix + "cost_per_productive_gpu_hour"] = g.prod > 0 ? g.cost / (g.prod / kHourUs) : 0;
  }
  if (costing_.powered()) m[prefix + "energy_kwh"] = g.energy_kwh;
}

void Recorder::add_figures(AllFigures& f, const JobRow& r) const {
  for (int c = 0; c < model::kPendingCauses; ++c) f.pending_us[c] += r.pending_us[c];
  if (r.name.empty()) return;
  const JobFigures x(r);
  f.all.add(r, x, horizon_);
  // Jobs of the default scheduler belong to no queue.
  if (!r.queue.empty()) f.by_queue[r.queue.str()].add(r, x, horizon_);
  const std::string_view kind = r.kind;
  auto by_kind = f.by_kind.find(kind);
  if (by_kind == f.by_kind.end()) by_kind = f.by_kind.emplace(std::string(kind), Figures{}).first;
  by_kind->second.add(r, x, horizon_);
  if (const std::string* c = class_of(r.name, class_prefixes_)) f.by_class[*c].add(r, x, horizon_);
  if (!f.accounting_violation && r.idle_gpu_milli_us() < 0) {
    f.accounting_violation =
        fmt::format("job {}: productive + lost GPU-time exceeds allocated by {} milli-GPU-µs",
                    r.name, int128_to_string(-r.idle_gpu_milli_us()));
  }
}

const Recorder::AllFigures& Recorder::figures(AllFigures& scratch) const {
  if (retired_ == base_ + jobs_.size()) return retired_figures_;
  scratch = retired_figures_;
  for (std::size_t i = retired_ - base_; i < jobs_.size(); ++i) add_figures(scratch, jobs_[i]);
  return scratch;
}

std::map<std::string, double> Recorder::metrics() const {
  std::map<std::string, double> m;
  AllFigures scratch;
  const AllFigures& f = figures(scratch);
  const Figures& all = f.all;
  const auto& by_queue = f.by_queue;
  const auto& by_kind = f.by_kind;
  const auto& by_class = f.by_class;
  all.write(m, "");
  write_cost(m, "", all);
  if (costing_.priced()) {
    // The whole cluster's cost, idle capacity included, and what each kept GPU-hour cost.
    m["cost_total"] = costing_.cost_total();
    m["cost_idle"] = costing_.cost_total() - costing_.cost_allocated();
    m["cost_total_per_productive_gpu_hour"] =
        all.prod > 0 ? costing_.cost_total() / (all.prod / kHourUs) : 0;
  }
  if (costing_.powered()) m["energy_total_kwh"] = costing_.energy_total_kwh();
  for (const auto& [q, g] : by_queue) {
    const std::string prefix = fmt::format("{}/{}/", kGroupQueue, q);
    g.write(m, prefix);
    write_cost(m, prefix, g);
    const auto quota = queue_quota_gpu_milli_.find(q);
    if (quota != queue_quota_gpu_milli_.end() && quota->second > 0 &&
        horizon_.time_since_epoch().count() > 0) {
      // Allocated GPU-time over the quota's GPU-time: 1 = the queue held its whole quota
      // throughout.
      m[prefix + "quota_share_used"] =
          g.alloc /
          (static_cast<double>(quota->second) / static_cast<double>(model::kGpuMilliPerGpu) *
           static_cast<double>(horizon_.time_since_epoch().count()));
    }
  }
  // While a queue had jobs waiting: how much of its quota, and of the cluster, was allocated. A
  // share near 1 says what held its jobs back (the answer to "was it nodes or quota?"). Measured
  // over the buckets of timeseries.csv in which the queue had a pending job.
  for (const auto& [q, g] : by_queue) {
    // Never waited: 0 hours, and no share "while waiting" (there was no such time).
    m[fmt::format("{}/{}/waiting_hours", kGroupQueue, q)] = 0;
    const auto sc = scopes_.find(q);
    if (sc == scopes_.end() || sc->second.pending.buckets.empty()) continue;
    Int128 alloc = 0, cluster_alloc = 0, cap = 0;
    std::int64_t width = 0;
    const std::int64_t end = horizon_.time_since_epoch().count();
    for (std::size_t i = 0; i < sc->second.pending.buckets.size(); ++i) {
      if (sc->second.pending.buckets[i] <= 0) continue;
      const std::int64_t b0 = static_cast<std::int64_t>(i) * bucket_.count();
      width += std::min<std::int64_t>(bucket_.count(), end - b0);
      if (i < sc->second.allocated.buckets.size()) alloc += sc->second.allocated.buckets[i];
      if (i < cluster_.allocated.buckets.size()) cluster_alloc += cluster_.allocated.buckets[i];
      if (i < capacity_.buckets.size()) cap += capacity_.buckets[i];
    }
    if (width <= 0) continue;
    const std::string prefix = fmt::format("{}/{}/", kGroupQueue, q);
    m[prefix + "waiting_hours"] = static_cast<double>(width) / kHourUs;
    m[prefix + "utilization_while_waiting"] =
        cap > 0 ? to_double(cluster_alloc) / to_double(cap) : 0;
    const auto quota = queue_quota_gpu_milli_.find(q);
    if (quota != queue_quota_gpu_milli_.end() && quota->second > 0) {
      m[prefix + "quota_share_while_waiting"] =
          to_double(alloc) / (static_cast<double>(quota->second) * static_cast<double>(width));
    }
  }
  for (const auto& [k, g] : by_kind) {
    g.write(m, fmt::format("{}/{}/", kGroupKind, k));
    write_cost(m, fmt::format("{}/{}/", kGroupKind, k), g);
  }
  for (const auto& [c, g] : by_class) {
    g.write(m, fmt::format("{}/{}/", kGroupClass, c));
    write_cost(m, fmt::format("{}/{}/", kGroupClass, c), g);
  }
  const double cap = gpu_value(capacity_area_);
  m["gpu_hours_capacity"] = cap / kHourUs;
  // Where capacity went: installed = down (by cause) + ready; ready = unallocated + allocated;
  // allocated = productive + lost (by cause) + idle.
  double down = 0;
  for (const auto& [cause, l] : down_) {
    m["gpu_hours_down_" + cause] = gpu_value(l.area) / kHourUs;
    down += gpu_value(l.area);
  }
  m["gpu_hours_down"] = down / kHourUs;
  m["gpu_hours_installed"] = (cap + down) / kHourUs;
  m["gpu_hours_unallocated"] = (cap - gpu_value(total_allocated_)) / kHourUs;
  m["utilization_allocated"] = cap > 0 ? gpu_value(total_allocated_) / cap : 0;
  m["utilization_productive"] = cap > 0 ? all.prod / cap : 0;
  m["goodput"] = all.alloc > 0 ? all.prod / all.alloc : 0;
  return m;
}

}  // namespace t9k::analysis
