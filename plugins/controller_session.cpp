#include "plugins/controller_session.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "plugins/checks.hpp"

namespace t9k::plugins {

namespace {

std::string job_name(const model::Job& job) { return model::object_key(model::metadata_of(job)); }

std::string when(model::SimTime now) {
  return fmt::format("at t={} s", kernel::format_seconds(now));
}

model::Job spec_of(const model::Job& job) {
  model::Job out = job;
  model::status_of(out) = {};
  return out;
}

template <class T>
bool same_optional(const std::optional<T>& kept, const T* now) {
  return now ? kept && *kept == *now : !kept;
}

}  // namespace

ControllerSession::ControllerSession(std::shared_ptr<Client> client, std::vector<std::string> kinds)
    : client_(std::move(client)), kinds_(std::move(kinds)) {}

bool ControllerSession::serves(const controllers::ReconcileInput& in) const {
  return std::find(kinds_.begin(), kinds_.end(), model::kind_name(in.job)) != kinds_.end();
}

const model::PluginKindRule& ControllerSession::rule(const model::PluginJob& job) const {
  for (const auto& k : client_->hello().kinds) {
    if (k.api_version == job.api_version && k.kind == job.kind) return k;
  }
  throw PluginError(fmt::format("plugin {}: it did not declare {} {} at initialize (result.kinds)",
                                name(), job.api_version, job.kind));
}

const model::PluginKindRule* ControllerSession::rule_of(const model::Job& job) const {
  const auto* p = std::get_if<model::PluginJob>(&job);
  return p ? &rule(*p) : nullptr;
}

void ControllerSession::read_status(const model::Job& job, model::SimTime now,
                                    model::JobStatus& status, const std::string& who) const {
  const model::PluginKindRule* rule = rule_of(job);
  if (!rule) return;
  try {
    protocol::read_plugin_status(*rule, model::status_of(job), now, status);
  } catch (const protocol::ProtocolError& e) {
    throw PluginError(fmt::format("{}: the status it wrote: {}", who, e.what()));
  }
}

void ControllerSession::forget(std::string_view uid) {
  const auto it = kept_.find(uid);
  if (it == kept_.end()) return;
  kept_.erase(it);
  if (const auto p = prepared_.find(uid); p != prepared_.end()) prepared_.erase(p);
  forget_.emplace_back(uid);
}

// ---- version 1 ----

controllers::ReconcileResult ControllerSession::reconcile_v1(
    const controllers::ReconcileInput& in) {
  const std::string context = fmt::format("of job {} {}", job_name(in.job), when(in.now));
  const std::string who = fmt::format("plugin {}: reconcile {}", name(), context);
  const protocol::Reply reply =
      client_->call("reconcile", protocol::reconcile_params(v1_jobs_, in), context);
  client_->count_items(1);
  controllers::ReconcileResult res;
  try {
    res = protocol::decode_reconcile_result(reply, rule_of(in.job) != nullptr);
  } catch (const protocol::ProtocolError& e) {
    throw PluginError(fmt::format("{}: {}", who, e.what()));
  }
  read_status(in.job, in.now, res.status, who);
  check_reconcile_result(in, res, who);
  return res;
}

// ---- version 2 ----

bool ControllerSession::update_pods(const controllers::ReconcileInput& in, Kept& kept,
                                    protocol::JobUpdate& u) {
  // The world keeps pods in creation order: the ones the plugin has, in its order, then new
  // ones. Walk both; a kept pod that is not next in the world's list is gone.
  std::size_t c = 0;
  std::vector<std::size_t> survivors;  // kept index of in.pods[0..c)
  for (std::size_t o = 0; o < kept.pods.size(); ++o) {
    if (c < in.pods.size() && in.pods[c].metadata.uid == kept.pods[o].metadata.uid) {
      survivors.push_back(o);
      ++c;
    } else {
      u.removed_pods.push_back(kept.pods[o].metadata.uid.str());
    }
  }
  for (std::size_t n = c; n < in.pods.size(); ++n) {
    const auto& uid = in.pods[n].metadata.uid;
    if (std::find(u.removed_pods.begin(), u.removed_pods.end(), uid) != u.removed_pods.end())
      return false;  // a kept pod moved: not a change the plugin can apply
  }
  std::vector<model::Pod> next;
  next.reserve(in.pods.size());
  for (std::size_t i = 0; i < c; ++i) {
    model::Pod& old = kept.pods[survivors[i]];
    if (!(old == in.pods[i])) {
      if (protocol::observed_change_only(old, in.pods[i])) {
        u.pod_patches.emplace_back(std::move(old), &in.pods[i]);
      } else {
        u.pods.push_back(&in.pods[i]);
      }
      old = in.pods[i];
    }
    next.push_back(std::move(old));
  }
  for (std::size_t n = c; n < in.pods.size(); ++n) {
    u.pods.push_back(&in.pods[n]);
    next.push_back(in.pods[n]);
  }
  kept.pods = std::move(next);
  return true;
}

protocol::JobUpdate ControllerSession::update(const controllers::ReconcileInput& in, bool resync) {
  const model::JobStatus& status = model::status_of(in.job);
  protocol::JobUpdate u;
  u.uid = model::metadata_of(in.job).uid;
  auto [it, fresh] = kept_.try_emplace(std::string(u.uid));
  Kept& k = it->second;
  if (!fresh && !resync) {
    if (!update_pods(in, k, u)) {
      u = {};
      u.uid = model::metadata_of(in.job).uid;
      resync = true;
    }
  }
  if (fresh || resync) {
    u.resync = true;
    u.job = &in.job;
    k.spec = spec_of(in.job);
    u.has_status = true;
    k.status = status;
    u.status = status == model::JobStatus{} ? nullptr : &status;
    u.pods.clear();
    for (const auto& p : in.pods) u.pods.push_back(&p);
    k.pods.assign(in.pods.begin(), in.pods.end());
    u.has_pod_group = true;
    u.pod_group = in.pod_group;
    k.pod_group = in.pod_group ? std::optional(*in.pod_group) : std::nullopt;
    u.has_tensorboard = true;
    u.tensorboard = in.tensorboard ? &*in.tensorboard : nullptr;
    k.tensorboard = in.tensorboard;
    return u;
  }
  if (!protocol::same_except_status(k.spec, in.job)) {
    u.job = &in.job;
    k.spec = spec_of(in.job);
  }
  if (!(status == k.status)) {
    u.has_status = true;
    u.status = status == model::JobStatus{} ? nullptr : &status;
    k.status = status;
  }
  if (!same_optional(k.pod_group, in.pod_group)) {
    u.has_pod_group = true;
    u.pod_group = in.pod_group;
    k.pod_group = in.pod_group ? std::optional(*in.pod_group) : std::nullopt;
  }
  const auto* tb = in.tensorboard ? &*in.tensorboard : nullptr;
  if (!same_optional(k.tensorboard, tb)) {
    u.has_tensorboard = true;
    u.tensorboard = tb;
    k.tensorboard = in.tensorboard;
  }
  return u;
}

bool ControllerSession::unchanged(const controllers::ReconcileInput& in, const Kept& k,
                                  const model::JobStatus& status_before) const {
  return model::status_of(in.job) == status_before && in.pods.size() == k.pods.size() &&
         std::equal(in.pods.begin(), in.pods.end(), k.pods.begin()) &&
         same_optional(k.pod_group, in.pod_group) &&
         same_optional(k.tensorboard, in.tensorboard ? &*in.tensorboard : nullptr) &&
         protocol::same_except_status(k.spec, in.job);
}

std::vector<protocol::JobAnswer> ControllerSession::exchange(
    std::span<const controllers::ReconcileInput* const> in, bool resync) {
  const model::SimTime now = in.front()->now;
  std::vector<protocol::JobUpdate> updates;
  updates.reserve(in.size());
  for (const auto* x : in) updates.push_back(update(*x, resync));
  std::string context;
  if (in.size() == 1) {
    context = fmt::format("of job {} {}", job_name(in.front()->job), when(now));
  } else {
    std::string names;
    for (std::size_t i = 0; i < std::min<std::size_t>(in.size(), 3); ++i)
      names += (i ? ", " : "") + job_name(in[i]->job);
    if (in.size() > 3) names += fmt::format(" and {} more", in.size() - 3);
    context = fmt::format("of {} jobs ({}) {}", in.size(), names, when(now));
  }
  const protocol::Reply reply =
      client_->call("reconcile", protocol::reconcile_batch_params(now, updates, forget_), context);
  forget_.clear();
  client_->count_items(in.size());
  std::vector<protocol::JobAnswer> answers;
  try {
    const std::size_t n = protocol::batch_answers(reply);
    if (n != in.size()) {
      throw protocol::ProtocolError(fmt::format(
          "result.results: {} answers for {} jobs (one per job of params.jobs, in order)", n,
          in.size()));
    }
  } catch (const protocol::ProtocolError& e) {
    throw PluginError(fmt::format("plugin {}: reconcile {}: {}", name(), context, e.what()));
  }
  for (std::size_t i = 0; i < in.size(); ++i) {
    try {
      answers.push_back(protocol::decode_job_answer(reply, i, updates[i].uid,
                                                    kept_.at(std::string(updates[i].uid)).status,
                                                    rule_of(in[i]->job) != nullptr));
    } catch (const protocol::ProtocolError& e) {
      throw PluginError(fmt::format("plugin {}: reconcile of job {} {}: {}", name(),
                                    job_name(in[i]->job), when(now), e.what()));
    }
    if (answers.back().status) {
      read_status(in[i]->job, now, *answers.back().status,
                  fmt::format("plugin {}: reconcile of job {} {}", name(), job_name(in[i]->job),
                              when(now)));
    }
    if (answers.back().resync && resync) {
      throw PluginError(fmt::format(
          "plugin {}: reconcile of job {} {}: result.results[{}].resync: asked again for the job "
          "it was just sent whole",
          name(), job_name(in[i]->job), when(now), i));
    }
  }
  return answers;
}

std::vector<protocol::JobAnswer> ControllerSession::send(
    std::span<const controllers::ReconcileInput* const> in) {
  std::vector<protocol::JobAnswer> answers = exchange(in, false);
  std::vector<const controllers::ReconcileInput*> again;
  std::vector<std::size_t> where;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i].resync) {
      again.push_back(in[i]);
      where.push_back(i);
    }
  }
  if (!again.empty()) {
    auto resent = exchange(again, true);
    for (std::size_t k = 0; k < where.size(); ++k) answers[where[k]] = std::move(resent[k]);
  }
  // The plugin now keeps the statuses it returned.
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i].status)
      kept_[model::metadata_of(in[i]->job).uid.str()].status = *answers[i].status;
  }
  return answers;
}

void ControllerSession::prepare(std::span<const controllers::ReconcileInput> due) {
  if (version() != 2) return;
  std::vector<const controllers::ReconcileInput*> ask;
  for (const auto& in : due) {
    if (!serves(in)) continue;
    const auto p = prepared_.find(model::metadata_of(in.job).uid.view());
    if (p != prepared_.end() && p->second.now == in.now) continue;  // another kind's call did it
    ask.push_back(&in);
  }
  if (ask.empty()) return;
  std::vector<model::JobStatus> before;
  for (const auto* in : ask) before.push_back(model::status_of(in->job));
  auto answers = send(ask);
  for (std::size_t i = 0; i < ask.size(); ++i) {
    prepared_.insert_or_assign(
        model::metadata_of(ask[i]->job).uid.str(),
        Prepared{ask[i]->now, std::move(before[i]), std::move(answers[i]), ask[i] == &due.front()});
  }
}

controllers::ReconcileResult ControllerSession::reconcile(const controllers::ReconcileInput& in) {
  if (version() != 2) return reconcile_v1(in);
  const std::string_view uid = model::metadata_of(in.job).uid;
  std::optional<Prepared> ready;
  if (const auto p = prepared_.find(uid); p != prepared_.end()) {
    // Used only for the input it was computed from; else the plugin is asked again (it then
    // gets what changed, its status included).
    if (p->second.now == in.now &&
        (p->second.certain || unchanged(in, kept_.at(std::string(uid)), p->second.status_before)))
      ready = std::move(p->second);
    prepared_.erase(p);
  }
  if (!ready) {
    const controllers::ReconcileInput* one[] = {&in};
    ready = Prepared{in.now, model::status_of(in.job), std::move(send(one).front())};
  }
  controllers::ReconcileResult res;
  res.actions = std::move(ready->answer.actions);
  res.status = ready->answer.status ? std::move(*ready->answer.status) : ready->status_before;
  res.requeue_after = ready->answer.requeue_after;
  res.events = std::move(ready->answer.events);
  check_reconcile_result(
      in, res,
      fmt::format("plugin {}: reconcile of job {} {}", name(), job_name(in.job), when(in.now)));
  return res;
}

}  // namespace t9k::plugins
