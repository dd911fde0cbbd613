// decide, version 2 (docs/protocol-v2.md §3): the richer observation, `waiting` and `jobs` sent
// incrementally (an entry when it changed, with the fields that changed), and the answer.
#include <fmt/format.h>

#include "protocol/envelope.hpp"
#include "protocol/v2.hpp"

namespace t9k::protocol {

using namespace detail;
namespace m = t9k::model;
using Obs = policies::ElasticObservation;

namespace {

// ---- writing: a field when it is new or changed ----

template <class T, class V, class F>
void field(Writer& w, const T* before, const T& now, V T::*member, std::string_view key, F write) {
  if (before && (*before).*member == now.*member) return;
  write(w.key(key), now.*member);
}

void put_int(Writer& w, std::int64_t v) { w.integer(v); }
void put_string(Writer& w, const std::string& v) { w.string(v); }
void put_bool(Writer& w, bool v) { w.boolean(v); }
void put_duration(Writer& w, m::SimDuration d) { w.integer(d.count()); }
void put_micros(Writer& w, m::SimTime t) { w.integer(t.time_since_epoch().count()); }
template <class T, class F>
auto put_optional(F f) {
  return [f](Writer& w, const std::optional<T>& v) {
    if (v) {
      f(w, *v);
    } else {
      w.null();
    }
  };
}

void write_waiting(Writer& w, const Obs::Waiting* before, const Obs::Waiting& x) {
  w.begin_object().key("jobId").integer(x.job);
  field(w, before, x, &Obs::Waiting::name, "job", put_string);
  field(w, before, x, &Obs::Waiting::queue, "queue", put_string);
  field(w, before, x, &Obs::Waiting::queue_priority, "queuePriority", put_int);
  field(w, before, x, &Obs::Waiting::job_priority, "jobPriority", put_int);
  field(w, before, x, &Obs::Waiting::elastic, "elastic", put_bool);
  field(w, before, x, &Obs::Waiting::waiting_pods, "waitingPods", put_int);
  field(w, before, x, &Obs::Waiting::growth_pods, "growthPods", put_int);
  field(w, before, x, &Obs::Waiting::demand, "demand", write_resources);
  field(w, before, x, &Obs::Waiting::gpu_milli, "gpuMilli", put_int);
  field(w, before, x, &Obs::Waiting::waiting_since, "waitingSinceMicros", put_micros);
  field(
      w, before, x, &Obs::Waiting::pending_cause, "pendingCause",
      put_optional<m::PendingCause>([](Writer& o, m::PendingCause c) { o.string(to_string(c)); }));
  w.end_object();
}

void write_job(Writer& w, const Obs::Job* before, const Obs::Job& x) {
  w.begin_object().key("jobId").integer(x.id);
  field(w, before, x, &Obs::Job::name, "job", put_string);
  field(w, before, x, &Obs::Job::queue, "queue", put_string);
  field(w, before, x, &Obs::Job::queue_priority, "queuePriority", put_int);
  field(w, before, x, &Obs::Job::job_priority, "jobPriority", put_int);
  field(w, before, x, &Obs::Job::min, "minReplicas", put_int);
  field(w, before, x, &Obs::Job::max, "maxReplicas", put_int);
  field(w, before, x, &Obs::Job::expected, "expectedReplicas", put_int);
  field(w, before, x, &Obs::Job::running_pods, "runningPods", put_int);
  field(w, before, x, &Obs::Job::waiting_pods, "waitingPods", put_int);
  field(w, before, x, &Obs::Job::gpus_per_pod, "gpusPerPod", put_int);
  field(w, before, x, &Obs::Job::scaling_weight, "scalingWeight",
        [](Writer& o, double v) { o.number(v); });
  field(w, before, x, &Obs::Job::speedup, "speedup", [](Writer& o, const std::vector<double>& v) {
    o.begin_array();
    for (const double s : v) o.number(s);
    o.end_array();
  });
  field(w, before, x, &Obs::Job::progress, "progress",
        put_optional<double>([](Writer& o, double v) { o.number(v); }));
  field(w, before, x, &Obs::Job::training, "training", put_bool);
  field(w, before, x, &Obs::Job::since_checkpoint, "sinceCheckpointMicros",
        put_optional<m::SimDuration>(put_duration));
  field(w, before, x, &Obs::Job::checkpoint_interval, "checkpointIntervalMicros",
        put_optional<m::SimDuration>(put_duration));
  field(w, before, x, &Obs::Job::checkpoint_cost, "checkpointCostMicros", put_duration);
  field(w, before, x, &Obs::Job::rescale_overhead, "rescaleOverheadMicros", put_duration);
  field(w, before, x, &Obs::Job::last_resize, "lastResizeMicros",
        put_optional<m::SimTime>(put_micros));
  w.end_object();
}

// The entries of `now` that are new or changed against `kept` (which becomes `now`), and the
// ids that left it.
template <class T, class Id, class Write>
void write_changes(Writer& w, std::string_view key, std::map<m::JobId, T>& kept,
                   const std::vector<T>& now, Id id, Write write, bool whole,
                   std::vector<m::JobId>& removed) {
  std::map<m::JobId, T> next;
  w.key(key).begin_array();
  for (const auto& x : now) {
    const auto it = kept.find(id(x));
    const T* before = whole || it == kept.end() ? nullptr : &it->second;
    if (!before || !(*before == x)) write(w, before, x);
    next.emplace(id(x), x);
  }
  w.end_array();
  for (const auto& [k, v] : kept) {
    if (!next.count(k)) removed.push_back(k);
  }
  kept = std::move(next);
}

}  // namespace

std::string ObservationEncoder::params(const Obs& o) {
  const bool whole = !sent_;
  Writer w;
  w.begin_object();
  write_time(w.key("now"), o.now);
  w.key("nowMicros").integer(o.now.time_since_epoch().count());
  if (whole) w.key("resync").boolean(true);
  w.key("freeGpus").integer(o.free_gpus).key("freeGpusPerNode").begin_array();
  for (const auto n : o.free_gpus_per_node) w.integer(n);
  w.end_array();
  write_queues(w.key("queues"), o.queues, "jobPriority");
  std::vector<m::JobId> gone_waiting, gone_jobs;
  write_changes(
      w, "waiting", waiting_, o.waiting, [](const Obs::Waiting& x) { return x.job; }, write_waiting,
      whole, gone_waiting);
  write_changes(
      w, "jobs", jobs_, o.jobs, [](const Obs::Job& x) { return x.id; }, write_job, whole,
      gone_jobs);
  if (!whole && (!gone_waiting.empty() || !gone_jobs.empty())) {
    w.key("removed").begin_object();
    auto ids = [&](std::string_view key, const std::vector<m::JobId>& gone) {
      if (gone.empty()) return;
      w.key(key).begin_array();
      for (const auto id : gone) w.integer(id);
      w.end_array();
    };
    ids("waiting", gone_waiting);
    ids("jobs", gone_jobs);
    w.end_object();
  }
  w.end_object();
  sent_ = true;
  return w.take();
}

DecideAnswer decode_decide_answer(const Reply& reply, const Obs& observation) {
  const Value& r = object(Access::result(reply), "result");
  if (const Member x = member(r, "resync"); x && boolean(*x, "result.resync")) return {true, {}};
  return {false, decode_decide_result(reply, observation)};
}

// ---- the other side ----

namespace {

m::PendingCause pending_cause(const Value& j, const Path& path) {
  const std::string s = string(j, path);
  for (int i = 0; i < m::kPendingCauses; ++i) {
    const auto c = static_cast<m::PendingCause>(i);
    if (to_string(c) == s) return c;
  }
  bad(path, "one of Quota, Capacity, Constraints, Preempting, QueueOrder, GangMembers", j);
}

m::SimTime time_micros(const Value& j, const Path& path) {
  const std::int64_t us = int64(j, path);
  if (us < 0) bad(path, "a time >= 0 (microseconds)", j);
  return m::SimTime{m::SimDuration{us}};
}

void merge_waiting(const Value& e, const Path& p, Obs::Waiting& v) {
  merge(e, p, "job", v.name, string);
  merge(e, p, "queue", v.queue, string);
  merge(e, p, "queuePriority", v.queue_priority, int32);
  merge(e, p, "jobPriority", v.job_priority, int32);
  merge(e, p, "elastic", v.elastic, boolean);
  merge(e, p, "waitingPods", v.waiting_pods, int32);
  merge(e, p, "growthPods", v.growth_pods, int32);
  merge(e, p, "demand", v.demand, resources);
  merge(e, p, "gpuMilli", v.gpu_milli, int64);
  merge(e, p, "waitingSinceMicros", v.waiting_since, time_micros);
  merge_optional(e, p, "pendingCause", v.pending_cause, pending_cause);
}

void merge_job(const Value& e, const Path& p, Obs::Job& v) {
  merge(e, p, "job", v.name, string);
  merge(e, p, "queue", v.queue, string);
  merge(e, p, "queuePriority", v.queue_priority, int32);
  merge(e, p, "jobPriority", v.job_priority, int32);
  merge(e, p, "minReplicas", v.min, int32);
  merge(e, p, "maxReplicas", v.max, int32);
  merge(e, p, "expectedReplicas", v.expected, int32);
  merge(e, p, "runningPods", v.running_pods, int32);
  merge(e, p, "waitingPods", v.waiting_pods, int32);
  merge(e, p, "gpusPerPod", v.gpus_per_pod, int64);
  merge(e, p, "scalingWeight", v.scaling_weight, number);
  merge(e, p, "speedup", v.speedup, [](const Value& x, const Path& sp) {
    std::vector<double> out;
    std::size_t k = 0;
    for (const auto& s : array(x, sp).items()) out.push_back(number(s, item(sp, k++)));
    return out;
  });
  merge_optional(e, p, "progress", v.progress, number);
  merge(e, p, "training", v.training, boolean);
  merge_optional(e, p, "sinceCheckpointMicros", v.since_checkpoint, micros);
  merge_optional(e, p, "checkpointIntervalMicros", v.checkpoint_interval, micros);
  merge(e, p, "checkpointCostMicros", v.checkpoint_cost, micros);
  merge(e, p, "rescaleOverheadMicros", v.rescale_overhead, micros);
  merge_optional(e, p, "lastResizeMicros", v.last_resize, time_micros);
}

template <class T, class Merge>
void apply_changes(const Value& p, std::string_view key, const Path& path,
                   std::map<m::JobId, T>& kept, Merge merge_entry, bool whole, m::JobId T::*id) {
  if (whole) kept.clear();
  std::size_t i = 0;
  for (const auto& e : array(need(p, "params", key), path).items()) {
    const Path ep = item(path, i++);
    object(e, ep);
    const auto job = static_cast<m::JobId>(int64(need(e, ep, "jobId"), child(ep, "jobId")));
    auto [it, fresh] = kept.try_emplace(job);
    if (fresh) it->second.*id = job;
    merge_entry(e, ep, it->second);
  }
}

}  // namespace

Obs ObservationDecoder::apply(const Request& request) {
  const Value& p = object(Access::params(request), "params");
  Obs o;
  if (const Member x = member(p, "nowMicros")) {
    o.now = time_micros(*x, "params.nowMicros");
  } else {
    o.now = timestamp(need(p, "params", "now"), "params.now");
  }
  const bool whole = member(p, "resync") && boolean(need(p, "params", "resync"), "params.resync");
  o.free_gpus = int64(need(p, "params", "freeGpus"), "params.freeGpus");
  if (const Member f = member(p, "freeGpusPerNode")) {
    std::size_t k = 0;
    const Path fp("params.freeGpusPerNode");
    for (const auto& n : array(*f, fp).items())
      o.free_gpus_per_node.push_back(int32(n, item(fp, k++)));
  }
  o.queues = read_queues(need(p, "params", "queues"), "params.queues", "jobPriority");
  apply_changes(p, "waiting", "params.waiting", waiting_, merge_waiting, whole, &Obs::Waiting::job);
  apply_changes(p, "jobs", "params.jobs", jobs_, merge_job, whole, &Obs::Job::id);
  if (const Member r = member(p, "removed")) {
    object(*r, "params.removed");
    if (const Member x = member(*r, "waiting")) {
      std::size_t k = 0;
      const Path rp("params.removed.waiting");
      for (const auto& id : array(*x, rp).items())
        waiting_.erase(static_cast<m::JobId>(int64(id, item(rp, k++))));
    }
    if (const Member x = member(*r, "jobs")) {
      std::size_t k = 0;
      const Path rp("params.removed.jobs");
      for (const auto& id : array(*x, rp).items())
        jobs_.erase(static_cast<m::JobId>(int64(id, item(rp, k++))));
    }
  }
  for (const auto& [id, w] : waiting_) o.waiting.push_back(w);
  for (const auto& [id, j] : jobs_) o.jobs.push_back(j);
  return o;
}

}  // namespace t9k::protocol
