// reconcile, version 2 (docs/protocol-v2.md §2): a batch of job updates and one answer per job.
#include <fmt/format.h>

#include "protocol/envelope.hpp"
#include "protocol/v2.hpp"

namespace t9k::protocol {

using namespace detail;
namespace m = t9k::model;

namespace {

void write_update(Writer& w, JobEncoder& specs, const JobUpdate& u) {
  w.begin_object().key("uid").string(u.uid);
  if (u.resync) w.key("resync").boolean(true);
  if (u.job) w.key("job").raw(specs.encode_without_status(*u.job));
  if (u.has_status) {
    if (u.status) {
      write_status(w.key("status"), *u.status);
    } else {
      w.key("status").null();
    }
  }
  if (!u.pods.empty() || u.resync) {
    w.key("pods").begin_array();
    for (const m::Pod* p : u.pods) write_pod(w, *p);
    w.end_array();
  }
  if (!u.pod_patches.empty()) {
    w.key("podPatches").begin_array();
    for (const auto& [before, after] : u.pod_patches) write_pod_patch(w, before, *after);
    w.end_array();
  }
  if (!u.removed_pods.empty()) {
    w.key("removedPods").begin_array();
    for (const auto& uid : u.removed_pods) w.string(uid);
    w.end_array();
  }
  if (u.has_pod_group) {
    if (u.pod_group) {
      write_pod_group(w.key("podGroup"), *u.pod_group);
    } else {
      w.key("podGroup").null();
    }
  }
  if (u.has_tensorboard) write_tensorboard(w.key("tensorBoard"), u.tensorboard);
  w.end_object();
}

}  // namespace

std::string reconcile_batch_params(m::SimTime now, std::span<const JobUpdate> jobs,
                                   std::span<const std::string> forget) {
  // Specs are sent when they change only: a throw-away encoder costs nothing kept.
  JobEncoder specs;
  Writer w;
  w.out().reserve(1024);
  w.begin_object();
  write_time(w.key("now"), now);
  w.key("nowMicros").integer(now.time_since_epoch().count());
  w.key("jobs").begin_array();
  for (const auto& u : jobs) write_update(w, specs, u);
  w.end_array();
  if (!forget.empty()) write_strings(w.key("forget"), {forget.begin(), forget.end()});
  w.end_object();
  return w.take();
}

bool observed_change_only(const m::Pod& before, const m::Pod& after) {
  return detail::observed_change_only(before, after);
}

std::size_t batch_answers(const Reply& reply) {
  const Value& r = object(Access::result(reply), "result");
  return array(need(r, "result", "results"), "result.results").size();
}

JobAnswer decode_job_answer(const Reply& reply, std::size_t i, std::string_view uid,
                            const m::JobStatus& kept, bool plugin_kind) {
  const Value& r = object(Access::result(reply), "result");
  const Path results("result.results");
  const auto items = array(need(r, "result", "results"), results).items();
  const Path path = item(results, i);
  const Value& a = object(items.at(i), path);
  const Value uid_v = need(a, path, "uid");
  if (string(uid_v, child(path, "uid")) != uid)
    bad(child(path, "uid"), fmt::format("\"{}\" (the uid of params.jobs[{}])", uid, i), uid_v);
  JobAnswer out;
  if (const Member x = member(a, "resync"); x && boolean(*x, child(path, "resync"))) {
    out.resync = true;
    return out;
  }
  if (const Member acts = member(a, "actions")) {
    std::size_t k = 0;
    const Path actions_path = child(path, "actions");
    for (const auto& x : array(*acts, actions_path).items())
      out.actions.push_back(decode_action(x, item(actions_path, k++)));
  }
  if (const Member st = member(a, "status")) {
    out.status = plugin_kind ? decode_plugin_status(*st, child(path, "status"))
                             : decode_status(*st, child(path, "status"));
  } else if (const Member patch = member(a, "statusPatch")) {
    if (plugin_kind)
      bad(child(path, "statusPatch"), "for a kind of the plugin's own, `status` whole");
    out.status = kept;
    apply_status_patch(*patch, child(path, "statusPatch"), *out.status);
  }
  out.requeue_after = duration_field(a, path, "requeueAfterMicros", "requeueAfter");
  if (const Member ev = member(a, "events")) out.events = decode_events(*ev, child(path, "events"));
  return out;
}

namespace {

JobUpdateIn decode_update(const Value& u, const Path& path, JobCache& specs) {
  object(u, path);
  JobUpdateIn out;
  out.uid = string(need(u, path, "uid"), child(path, "uid"));
  if (const Member x = member(u, "resync")) out.resync = boolean(*x, child(path, "resync"));
  if (const Member x = member(u, "job")) {
    const Path jp = child(path, "job");
    out.job = cached_job(object(*x, jp), jp, specs);
  }
  if (const Value st = u.find("status"); st.present()) {
    out.has_status = true;
    if (!st.is_null()) out.status = decode_status(st, child(path, "status"));
  }
  if (const Member ps = member(u, "pods")) {
    const Path pp = child(path, "pods");
    std::size_t k = 0;
    for (const auto& p : array(*ps, pp).items()) out.pods.push_back(decode_pod(p, item(pp, k++)));
  }
  if (const Member ps = member(u, "podPatches")) {
    const Path pp = child(path, "podPatches");
    std::size_t k = 0;
    for (const auto& patch : array(*ps, pp).items()) {
      const Path at = item(pp, k++);
      const Value meta = need(object(patch, at), at, "metadata");
      const Path mp = child(at, "metadata");
      out.pod_patches.push_back({string(need(object(meta, mp), mp, "uid"), child(mp, "uid")),
                                 std::string(patch.raw()), at.str()});
    }
  }
  if (const Member x = member(u, "removedPods"))
    out.removed_pods = strings(*x, child(path, "removedPods"));
  if (const Value g = u.find("podGroup"); g.present()) {
    out.has_pod_group = true;
    if (!g.is_null()) out.pod_group = decode_pod_group(g, child(path, "podGroup"));
  }
  if (const Value t = u.find("tensorBoard"); t.present()) {
    out.has_tensorboard = true;
    if (!t.is_null()) out.tensorboard = decode_tensorboard(t, child(path, "tensorBoard"));
  }
  if (out.resync && (!out.job || !out.has_status || !out.has_pod_group || !out.has_tensorboard))
    bad(path, "a resync update carries job, status, pods, podGroup and tensorBoard");
  return out;
}

}  // namespace

ReconcileBatch decode_reconcile_batch(const Request& request, JobCache& specs) {
  const Value& p = object(Access::params(request), "params");
  ReconcileBatch out;
  if (const Member x = member(p, "nowMicros")) {
    out.now = micros_time(*x, "params.nowMicros");
  } else {
    out.now = timestamp(need(p, "params", "now"), "params.now");
  }
  const Path jobs_path("params.jobs");
  std::size_t i = 0;
  for (const auto& u : array(need(p, "params", "jobs"), jobs_path).items())
    out.jobs.push_back(decode_update(u, item(jobs_path, i++), specs));
  if (const Member f = member(p, "forget")) out.forget = strings(*f, "params.forget");
  return out;
}

void apply_pod_patch(const PodPatchIn& patch, m::Pod& pod) {
  const auto doc = json::Document::parse(patch.json, patch.path);
  const std::string root = patch.path;
  detail::apply_pod_patch(doc.root(), Path(root.c_str()), pod);
}

std::string reconcile_batch_result(std::span<const JobAnswerOut> answers) {
  Writer w;
  w.begin_object().key("results").begin_array();
  for (const auto& a : answers) {
    w.begin_object().key("uid").string(a.uid);
    if (a.resync || !a.result) {
      w.key("resync").boolean(true).end_object();
      continue;
    }
    if (!a.result->actions.empty()) {
      w.key("actions").begin_array();
      for (const auto& x : a.result->actions) write_action(w, x);
      w.end_array();
    }
    if (a.with_status && a.kept && !a.result->status.plugin_status) {
      write_status_patch(w.key("statusPatch"), *a.kept, a.result->status);
    } else if (a.with_status) {
      write_status(w.key("status"), a.result->status);
    }
    if (a.result->requeue_after)
      w.key("requeueAfterMicros").integer(a.result->requeue_after->count());
    if (!a.result->events.empty()) write_events(w.key("events"), a.result->events);
    w.end_object();
  }
  w.end_array().end_object();
  return w.take();
}

}  // namespace t9k::protocol
