// decide, version 1 (docs/protocol.md §5): an elastic policy's observation and its decisions.
#include <algorithm>

#include <fmt/format.h>

#include "protocol/envelope.hpp"

namespace t9k::protocol {

using namespace detail;
namespace m = t9k::model;

namespace detail {

void write_queues(Writer& w, const std::vector<policies::ElasticObservation::Queue>& queues,
                  std::string_view pending_priority) {
  w.begin_array();
  for (const auto& q : queues) {
    w.begin_object().key("name").string(q.name).key("priority").integer(q.priority);
    if (q.quota_gpu_milli) {
      w.key("quotaGpuMilli").integer(*q.quota_gpu_milli);
    } else {
      w.key("quotaGpuMilli").null();
    }
    w.key("allocatedGpuMilli").integer(q.allocated_gpu_milli).key("pending").begin_array();
    for (const auto& d : q.pending) {
      w.begin_object().key(pending_priority).integer(d.job_priority);
      w.key("gpuMilli").integer(d.gpu_milli).key("jobs").integer(d.jobs).end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
}

std::vector<policies::ElasticObservation::Queue> read_queues(const Value& j, const Path& path,
                                                             std::string_view pending_priority) {
  std::vector<policies::ElasticObservation::Queue> out;
  std::size_t i = 0;
  for (const auto& q : array(j, path).items()) {
    const Path qp = item(path, i++);
    object(q, qp);
    policies::ElasticObservation::Queue v;
    v.name = string(need(q, qp, "name"), child(qp, "name"));
    if (const Member x = member(q, "priority")) v.priority = int32(*x, child(qp, "priority"));
    if (const Member x = member(q, "quotaGpuMilli"))
      v.quota_gpu_milli = int64(*x, child(qp, "quotaGpuMilli"));
    if (const Member x = member(q, "allocatedGpuMilli"))
      v.allocated_gpu_milli = int64(*x, child(qp, "allocatedGpuMilli"));
    if (const Member pend = member(q, "pending")) {
      std::size_t k = 0;
      const Path pp = child(qp, "pending");
      for (const auto& d : array(*pend, pp).items()) {
        const Path dp = item(pp, k++);
        object(d, dp);
        v.pending.push_back({int32(need(d, dp, pending_priority), child(dp, pending_priority)),
                             int64(need(d, dp, "gpuMilli"), child(dp, "gpuMilli")),
                             int32(need(d, dp, "jobs"), child(dp, "jobs"))});
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace detail

std::string decide_params(const policies::ElasticObservation& o) {
  Writer w;
  w.begin_object();
  write_time(w.key("now"), o.now);
  w.key("nowMicros").integer(o.now.time_since_epoch().count()).key("freeGpus").integer(o.free_gpus);
  write_queues(w.key("queues"), o.queues, "priority");
  w.key("waiting").begin_array();
  w.end_array().key("waiting").begin_array();
  for (const auto& x : o.waiting)
    w.begin_object()
        .key("jobId")
        .integer(x.job)
        .key("priority")
        .integer(x.queue_priority)
        .end_object();
  w.end_array().key("jobs").begin_array();
  for (const auto& j : o.jobs) {
    w.begin_object().key("job").string(j.name).key("jobId").integer(j.id).key("queue").string(
        j.queue);
    w.key("priority")
        .integer(j.queue_priority)
        .key("minReplicas")
        .integer(j.min)
        .key("maxReplicas")
        .integer(j.max);
    w.key("expectedReplicas").integer(j.expected).key("runningPods").integer(j.running_pods);
    w.key("gpusPerPod").integer(j.gpus_per_pod).key("scalingWeight").number(j.scaling_weight);
    w.key("speedup").begin_array();
    for (const double s : j.speedup) w.number(s);
    w.end_array();
    if (j.progress) {
      w.key("progress").number(*j.progress);
    } else {
      w.key("progress").null();
    }
    w.key("training").boolean(j.training);
    write_optional_micros(w, "sinceCheckpointMicros", j.since_checkpoint);
    write_optional_micros(w, "checkpointIntervalMicros", j.checkpoint_interval);
    w.key("checkpointCostMicros").integer(j.checkpoint_cost.count());
    w.key("rescaleOverheadMicros").integer(j.rescale_overhead.count());
    if (j.last_resize) {
      w.key("lastResizeMicros").integer(j.last_resize->time_since_epoch().count());
    } else {
      w.key("lastResizeMicros").null();
    }
    w.end_object();
  }
  w.end_array().end_object();
  return w.take();
}

policies::ElasticObservation decode_decide(const Request& request) {
  const Value& p = object(Access::params(request), "params");
  policies::ElasticObservation o;
  if (const Member x = member(p, "nowMicros")) {
    o.now = micros_time(*x, "params.nowMicros");
  } else {
    o.now = timestamp(need(p, "params", "now"), "params.now");
  }
  o.free_gpus = int64(need(p, "params", "freeGpus"), "params.freeGpus");
  o.queues = read_queues(need(p, "params", "queues"), "params.queues", "priority");
  std::size_t i = 0;
  const Path waiting_path("params.waiting");
  for (const auto& w : array(need(p, "params", "waiting"), waiting_path).items()) {
    const Path wp = item(waiting_path, i++);
    object(w, wp);
    auto& x = o.waiting.emplace_back();
    x.queue_priority = int32(need(w, wp, "priority"), child(wp, "priority"));
    x.job = static_cast<m::JobId>(int64(need(w, wp, "jobId"), child(wp, "jobId")));
  }
  i = 0;
  const Path jobs_path("params.jobs");
  for (const auto& j : array(need(p, "params", "jobs"), jobs_path).items()) {
    const Path jp = item(jobs_path, i++);
    object(j, jp);
    policies::ElasticObservation::Job v;
    v.name = string(need(j, jp, "job"), child(jp, "job"));
    v.id = static_cast<m::JobId>(int64(need(j, jp, "jobId"), child(jp, "jobId")));
    v.queue = opt_string(j, jp, "queue");
    if (const Member x = member(j, "priority")) v.queue_priority = int32(*x, child(jp, "priority"));
    v.min = int32(need(j, jp, "minReplicas"), child(jp, "minReplicas"));
    v.max = int32(need(j, jp, "maxReplicas"), child(jp, "maxReplicas"));
    v.expected = int32(need(j, jp, "expectedReplicas"), child(jp, "expectedReplicas"));
    if (const Member x = member(j, "runningPods"))
      v.running_pods = int32(*x, child(jp, "runningPods"));
    if (const Member x = member(j, "gpusPerPod"))
      v.gpus_per_pod = int64(*x, child(jp, "gpusPerPod"));
    if (const Member x = member(j, "scalingWeight"))
      v.scaling_weight = number(*x, child(jp, "scalingWeight"));
    if (const Member x = member(j, "speedup")) {
      std::size_t k = 0;
      const Path sp = child(jp, "speedup");
      for (const auto& s : array(*x, sp).items()) v.speedup.push_back(number(s, item(sp, k++)));
    }
    if (const Member x = member(j, "progress")) v.progress = number(*x, child(jp, "progress"));
    if (const Member x = member(j, "training")) v.training = boolean(*x, child(jp, "training"));
    if (const Member x = member(j, "sinceCheckpointMicros"))
      v.since_checkpoint = micros(*x, child(jp, "sinceCheckpointMicros"));
    if (const Member x = member(j, "checkpointIntervalMicros"))
      v.checkpoint_interval = micros(*x, child(jp, "checkpointIntervalMicros"));
    if (const Member x = member(j, "checkpointCostMicros"))
      v.checkpoint_cost = micros(*x, child(jp, "checkpointCostMicros"));
    if (const Member x = member(j, "rescaleOverheadMicros"))
      v.rescale_overhead = micros(*x, child(jp, "rescaleOverheadMicros"));
    if (const Member x = member(j, "lastResizeMicros"))
      v.last_resize = micros_time(*x, child(jp, "lastResizeMicros"));
    o.jobs.push_back(std::move(v));
  }
  return o;
}

std::string decide_result(const policies::ElasticDecisions& d,
                          const policies::ElasticObservation& o) {
  Writer w;
  w.begin_object().key("decisions").begin_array();
  for (const auto& x : d.decisions) {
    w.begin_object()
        .key("jobId")
        .integer(x.job)
        .key("expectedReplicas")
        .integer(x.expected_replicas);
    for (const auto& j : o.jobs) {
      if (j.id == x.job) w.key("job").string(j.name);
    }
    w.end_object();
  }
  w.end_array();
  if (d.next) {
    w.key("nextDecisionMicros").integer(d.next->time_since_epoch().count());
  } else {
    w.key("nextDecisionMicros").null();
  }
  w.end_object();
  return w.take();
}

policies::ElasticDecisions decode_decide_result(const Reply& reply,
                                                const policies::ElasticObservation& o) {
  const Value& r = object(Access::result(reply), "result");
  policies::ElasticDecisions out;
  std::size_t i = 0;
  const Path decisions_path("result.decisions");
  for (const auto& d : array(need(r, "result", "decisions"), decisions_path).items()) {
    const Path dp = item(decisions_path, i++);
    object(d, dp);
    policies::ElasticDecision x;
    if (const Member id = member(d, "jobId")) {
      x.job = static_cast<m::JobId>(int64(*id, child(dp, "jobId")));
      // Both given: they must name one job.
      if (const Member name_v = member(d, "job")) {
        const std::string name = string(*name_v, child(dp, "job"));
        const auto it = std::find_if(o.jobs.begin(), o.jobs.end(),
                                     [&](const auto& j) { return j.id == x.job; });
        if (it == o.jobs.end() || it->name != name)
          bad(child(dp, "job"), "the name of the job jobId names", *name_v);
      }
    } else {
      const Value name_v = need(d, dp, "job");
      const std::string name = string(name_v, child(dp, "job"));
      const auto it =
          std::find_if(o.jobs.begin(), o.jobs.end(), [&](const auto& j) { return j.name == name; });
      if (it == o.jobs.end()) bad(child(dp, "job"), "an elastic job of the request's jobs", name_v);
      x.job = it->id;
    }
    x.expected_replicas = int32(need(d, dp, "expectedReplicas"), child(dp, "expectedReplicas"));
    out.decisions.push_back(x);
  }
  if (const Member x = member(r, "nextDecisionMicros")) {
    out.next = micros_time(*x, "result.nextDecisionMicros");
  } else if (const Member t = member(r, "nextDecision")) {
    out.next = timestamp(*t, "result.nextDecision");
  }
  return out;
}

}  // namespace t9k::protocol
