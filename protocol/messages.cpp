// The protocol's messages: JSON-RPC framing, initialize, reconcile and decide, both sides.
#include <algorithm>

#include <fmt/format.h>

#include "protocol/objects.hpp"
#include "protocol/protocol.hpp"
#include "scenarios/format/manifests.hpp"
#include "scenarios/format/serialize.hpp"

namespace t9k::protocol {

using namespace detail;
namespace m = t9k::model;

std::string_view to_string(Role r) {
  return r == Role::Controller ? "controller" : "elasticPolicy";
}

namespace {

m::SimTime micros_time(const Value& j, const Path& path) {
  const std::int64_t us = int64(j, path);
  if (us < 0) bad(path, "a time >= 0 (microseconds)", j);
  return m::SimTime{m::SimDuration{us}};
}

m::SimDuration micros(const Value& j, const Path& path) {
  const std::int64_t us = int64(j, path);
  if (us < 0) bad(path, "a duration >= 0 (microseconds)", j);
  return m::SimDuration{us};
}

// "requeueAfterMicros": 30000000, or "requeueAfter": "30s".
std::optional<m::SimDuration> duration_field(const Value& obj, const Path& path,
                                             std::string_view micros_key,
                                             std::string_view text_key) {
  if (const Member x = member(obj, micros_key)) return micros(*x, child(path, micros_key));
  if (const Member x = member(obj, text_key)) {
    const std::string s = string(*x, child(path, text_key));
    try {
      return kernel::parse_duration(s);
    } catch (const std::exception& e) {
      bad(child(path, text_key), e.what());
    }
  }
  return std::nullopt;
}

void write_action(Writer& w, const controllers::Action& action) {
  std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a)>;
        w.begin_object();
        if constexpr (std::is_same_v<T, controllers::CreatePod>) {
          write_pod(w.key("type").string("CreatePod").key("pod"), a.pod);
        } else if constexpr (std::is_same_v<T, controllers::DeletePod>) {
          w.key("type")
              .string("DeletePod")
              .key("name")
              .string(a.name)
              .key("reason")
              .string(m::to_string(a.reason));
        } else if constexpr (std::is_same_v<T, controllers::CreatePodGroup>) {
          write_pod_group(w.key("type").string("CreatePodGroup").key("podGroup"), a.pod_group);
        } else if constexpr (std::is_same_v<T, controllers::UpdatePodGroup>) {
          write_pod_group(w.key("type").string("UpdatePodGroup").key("podGroup"), a.pod_group);
        } else if constexpr (std::is_same_v<T, controllers::CreateTensorBoard>) {
          w.key("type")
              .string("CreateTensorBoard")
              .key("name")
              .string(a.name)
              .key("namespace")
              .string(a.namespace_);
          w.key("spec").begin_object();
          if (!a.spec.image.empty()) w.key("image").string(a.spec.image);
          if (!a.spec.training_log_filesets.empty())
            write_strings(w.key("trainingLogFilesets"), a.spec.training_log_filesets);
          w.end_object();
          const auto& o = a.owner;
          w.key("owner")
              .begin_object()
              .key("apiVersion")
              .string(o.api_version)
              .key("kind")
              .string(o.kind);
          w.key("name")
              .string(o.name)
              .key("uid")
              .string(o.uid)
              .key("controller")
              .boolean(o.controller)
              .end_object();
        } else {
          w.key("type").string("RestartTraining");
          write_strings(w.key("pods"), a.pods);
          w.key("replicas")
              .integer(a.replicas)
              .key("worldSize")
              .integer(a.world_size)
              .key("reason")
              .string(a.reason);
        }
        w.end_object();
      },
      action);
}

controllers::Action decode_action(const Value& j, const Path& path) {
  object(j, path);
  const Value type_v = need(j, path, "type");
  const std::string type = string(type_v, child(path, "type"));
  if (type == "CreatePod")
    return controllers::CreatePod{detail::decode_pod(need(j, path, "pod"), child(path, "pod"))};
  if (type == "DeletePod") {
    controllers::DeletePod d;
    d.name = string(need(j, path, "name"), child(path, "name"));
    if (const Member x = member(j, "reason")) d.reason = deletion_reason(*x, child(path, "reason"));
    return d;
  }
  if (type == "CreatePodGroup") {
    return controllers::CreatePodGroup{
        detail::decode_pod_group(need(j, path, "podGroup"), child(path, "podGroup"))};
  }
  if (type == "UpdatePodGroup") {
    return controllers::UpdatePodGroup{
        detail::decode_pod_group(need(j, path, "podGroup"), child(path, "podGroup"))};
  }
  if (type == "CreateTensorBoard") {
    controllers::CreateTensorBoard t;
    t.name = string(need(j, path, "name"), child(path, "name"));
    t.namespace_ = opt_string(j, path, "namespace");
    if (const Member s = member(j, "spec")) {
      const Path sp = child(path, "spec");
      t.spec.image = opt_string(object(*s, sp), sp, "image");
      if (const Member f = member(*s, "trainingLogFilesets"))
        t.spec.training_log_filesets = strings(*f, child(sp, "trainingLogFilesets"));
    }
    if (const Member o = member(j, "owner")) {
      const Path op = child(path, "owner");
      object(*o, op);
      t.owner.api_version = opt_string(*o, op, "apiVersion");
      t.owner.kind = opt_string(*o, op, "kind");
      t.owner.name = opt_string(*o, op, "name");
      t.owner.uid = opt_string(*o, op, "uid");
      if (const Member c = member(*o, "controller"))
        t.owner.controller = boolean(*c, child(op, "controller"));
    }
    return t;
  }
  if (type == "RestartTraining") {
    controllers::RestartTraining r;
    if (const Member x = member(j, "pods")) r.pods = strings(*x, child(path, "pods"));
    r.replicas = int32(need(j, path, "replicas"), child(path, "replicas"));
    if (const Member x = member(j, "worldSize")) r.world_size = int32(*x, child(path, "worldSize"));
    r.reason = opt_string(j, path, "reason");
    return r;
  }
  bad(child(path, "type"),
      "CreatePod, DeletePod, CreatePodGroup, UpdatePodGroup, CreateTensorBoard or RestartTraining",
      type_v);
}

void write_optional_micros(Writer& w, std::string_view key,
                           const std::optional<m::SimDuration>& d) {
  if (d) {
    w.key(key).integer(d->count());
  } else {
    w.key(key).null();
  }
}

bool same_except_status(const m::Job& a, const m::Job& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        const auto& y = std::get<std::decay_t<decltype(x)>>(b);
        return x.metadata == y.metadata && x.spec == y.spec;
      },
      a);
}

}  // namespace

// ---- framing ----

std::string request_line(std::int64_t id, std::string_view method, std::string_view params_json) {
  std::string s = fmt::format(R"({{"jsonrpc":"2.0","id":{},"method":"{}","params":)", id, method);
  s += params_json;
  s += '}';
  return s;
}

std::string result_line(const std::string& id_json, std::string_view result_json) {
  std::string s = R"({"jsonrpc":"2.0","id":)";
  s += id_json.empty() ? "null" : id_json;
  s += R"(,"result":)";
  s += result_json;
  s += '}';
  return s;
}

std::string error_line(const std::string& id_json, int code, std::string_view message) {
  Writer w;
  w.begin_object().key("code").integer(code).key("message").string(message).end_object();
  return fmt::format(R"({{"jsonrpc":"2.0","id":{},"error":{}}})",
                     id_json.empty() ? "null" : id_json, w.out());
}

struct Reply::Impl {
  std::string text;
  std::optional<json::Document> doc;  // points into text: both live here, on the heap
  Value result;
};

Reply::Reply(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Reply::~Reply() = default;
Reply::Reply(Reply&&) noexcept = default;

Reply Reply::parse(std::string_view line, std::int64_t expected_id) {
  auto impl = std::make_unique<Impl>();
  impl->text = line;
  impl->doc.emplace(json::Document::parse(impl->text, "the reply"));
  const Value j = impl->doc->root();
  object(j, "the reply");
  const Member v = member(j, "jsonrpc");
  if (!v || !v->is_string() || v->string() != "2.0") bad("jsonrpc", "\"2.0\"", v ? *v : Value{});
  const Member id = member(j, "id");
  std::int64_t got = 0;
  if (!id || !id->to_int64(got) || got != expected_id) {
    bad("id", fmt::format("{} (the request's id)", expected_id), id ? *id : Value{});
  }
  if (const Member e = member(j, "error")) {
    const Member msg = e->is_object() ? member(*e, "message") : Member{};
    const Member code = e->is_object() ? member(*e, "code") : Member{};
    throw ProtocolError(
        fmt::format("the plugin answered error {}: {}", code ? std::string(code->raw()) : "?",
                    msg && msg->is_string() ? msg->string() : std::string(e->raw())));
  }
  impl->result = j.find("result");
  if (!impl->result.present()) bad("result", "required field is missing");  // null is an answer
  return Reply(std::move(impl));
}

struct Request::Impl {
  std::string text;
  std::optional<json::Document> doc;
  Value params;
  std::string method;
  std::string id_json;
};

Request::Request(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Request::~Request() = default;
Request::Request(Request&&) noexcept = default;
const std::string& Request::method() const { return impl_->method; }
const std::string& Request::id_json() const { return impl_->id_json; }

Request Request::parse(std::string_view line) {
  auto impl = std::make_unique<Impl>();
  impl->text = line;
  impl->doc.emplace(json::Document::parse(impl->text, "the request"));
  const Value j = impl->doc->root();
  object(j, "the request");
  impl->method = string(need(j, "", "method"), "method");
  if (const Member id = member(j, "id")) impl->id_json = std::string(id->raw());
  impl->params = j.find("params");
  return Request(std::move(impl));
}

struct Decoders {
  static const Value& params(const Request& r) { return r.impl_->params; }
};

// ---- initialize ----

std::string initialize_params(Role role, const std::vector<std::string>& kinds,
                              std::string_view simulator_version,
                              const controllers::ControllerOptions& controller_options,
                              const PolicySettings& policy) {
  Writer w;
  w.begin_object()
      .key("protocolVersion")
      .string(kProtocolVersion)
      .key("role")
      .string(to_string(role));
  write_strings(w.key("kinds"), kinds);
  w.key("simulator")
      .begin_object()
      .key("name")
      .string("t9ksim")
      .key("version")
      .string(simulator_version)
      .end_object();
  write_options(w.key("controllerOptions"), controller_options);
  w.key("policy")
      .begin_object()
      .key("name")
      .string(policy.policy)
      .key("periodMicros")
      .integer(policy.period.count());
  w.key("cooldownMicros").integer(policy.options.cooldown.count());
  w.key("checkpointWindowMicros").integer(policy.options.checkpoint_window.count()).end_object();
  w.end_object();
  return w.take();
}

InitializeRequest decode_initialize(const Request& request) {
  const Value& p = object(Decoders::params(request), "params");
  InitializeRequest r;
  r.protocol_version = string(need(p, "params", "protocolVersion"), "params.protocolVersion");
  const Value role_v = need(p, "params", "role");
  const std::string role = string(role_v, "params.role");
  if (role == "controller") {
    r.role = Role::Controller;
  } else if (role == "elasticPolicy") {
    r.role = Role::ElasticPolicy;
  } else {
    bad("params.role", "controller or elasticPolicy", role_v);
  }
  if (const Member k = member(p, "kinds")) r.kinds = strings(*k, "params.kinds");
  if (const Member o = member(p, "controllerOptions"))
    r.controller_options = detail::decode_options(*o, "params.controllerOptions");
  if (const Member pol = member(p, "policy")) {
    object(*pol, "params.policy");
    r.policy_settings.policy = opt_string(*pol, "params.policy", "name");
    if (const Member x = member(*pol, "periodMicros"))
      r.policy_settings.period = micros(*x, "params.policy.periodMicros");
    if (const Member x = member(*pol, "cooldownMicros"))
      r.policy_settings.options.cooldown = micros(*x, "params.policy.cooldownMicros");
    if (const Member x = member(*pol, "checkpointWindowMicros")) {
      r.policy_settings.options.checkpoint_window =
          micros(*x, "params.policy.checkpointWindowMicros");
    }
  }
  return r;
}

std::string hello_result(const Hello& h) {
  Writer w;
  w.begin_object().key("protocolVersion").string(h.protocol_version).key("name").string(h.name);
  w.key("capabilities").begin_object().key("decide").boolean(h.decides).end_object().end_object();
  return w.take();
}

Hello decode_hello(const Reply& reply) {
  const Value& r = object(reply.impl_->result, "result");
  Hello h;
  h.protocol_version = string(need(r, "result", "protocolVersion"), "result.protocolVersion");
  h.name = opt_string(r, "result", "name");
  if (const Member c = member(r, "capabilities")) {
    if (const Member d = member(object(*c, "result.capabilities"), "decide"))
      h.decides = boolean(*d, "result.capabilities.decide");
  }
  return h;
}

// ---- reconcile ----

std::string job_json(const m::Job& job) {
  return scenarios::to_compact_json(scenarios::to_object(job));
}

struct JobEncoder::Entry {
  m::Job without_status;
  std::string head;  // the job's JSON without status, without its closing brace
};

JobEncoder::JobEncoder() = default;
JobEncoder::~JobEncoder() = default;

std::string JobEncoder::encode(const m::Job& job) {
  const std::string& uid = m::metadata_of(job).uid;
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end() || !same_except_status(it->second->without_status, job)) {
    if (by_uid_.size() > 4096) by_uid_.clear();  // bounded: a long run sees each job briefly
    auto e = std::make_unique<Entry>();
    e->without_status = job;
    m::status_of(e->without_status) = {};
    e->head = job_json(e->without_status);
    e->head.pop_back();  // '}'
    it = by_uid_.insert_or_assign(uid, std::move(e)).first;
  }
  const m::JobStatus& status = m::status_of(job);
  std::string out = it->second->head;
  if (!(status == m::JobStatus{})) {
    Writer w;
    write_status(w, status);
    out += R"(,"status":)";
    out += w.out();
  }
  out += '}';
  return out;
}

std::string reconcile_params(const controllers::ReconcileInput& in) {
  JobEncoder jobs;
  return reconcile_params(jobs, in);
}

std::string reconcile_params(JobEncoder& jobs, const controllers::ReconcileInput& in) {
  Writer w;
  w.out().reserve(4096);
  w.begin_object().key("job").raw(jobs.encode(in.job));
  w.key("pods").begin_array();
  for (const auto& p : in.pods) write_pod(w, p);
  w.end_array();
  if (in.pod_group) {
    write_pod_group(w.key("podGroup"), *in.pod_group);
  } else {
    w.key("podGroup").null();
  }
  if (in.tensorboard) {
    w.key("tensorBoard")
        .begin_object()
        .key("uid")
        .string(in.tensorboard->uid)
        .key("ready")
        .boolean(in.tensorboard->ready)
        .end_object();
  } else {
    w.key("tensorBoard").null();
  }
  write_time(w.key("now"), in.now);
  w.key("nowMicros").integer(in.now.time_since_epoch().count());
  write_options(w.key("options"), in.options);
  w.end_object();
  return w.take();
}

JobCache::JobCache() = default;
JobCache::~JobCache() = default;

const m::Job* JobCache::find(std::string_view key) const {
  const auto it = jobs_.find(key);
  return it == jobs_.end() ? nullptr : &it->second;
}

void JobCache::insert(std::string key, m::Job job) {
  if (jobs_.size() > 4096) jobs_.clear();  // bounded: a long run sees each spec briefly
  jobs_.insert_or_assign(std::move(key), std::move(job));
}

OwnedReconcileInput decode_reconcile(const Request& request, JobCache& jobs) {
  const Value& p = object(Decoders::params(request), "params");
  OwnedReconcileInput in;
  const Value job = object(need(p, "params", "job"), "params.job");
  // The job without its status, as written, keys its decoded spec: a job's spec changes rarely.
  std::string key;
  for (const char* k : {"apiVersion", "kind", "metadata", "spec"}) {
    key += job.find(k).raw();
    key += '\n';
  }
  if (const m::Job* cached = jobs.find(key)) {
    in.job = *cached;
  } else {
    in.job = detail::decode_job(job, "params.job");
    m::status_of(in.job) = {};
    jobs.insert(std::move(key), in.job);
  }
  if (const Member st = member(job, "status"))
    m::status_of(in.job) = detail::decode_status(*st, "params.job.status");
  std::size_t i = 0;
  const Path pods_path("params.pods");
  for (const auto& pod : array(need(p, "params", "pods"), pods_path).items()) {
    in.pods.push_back(detail::decode_pod(pod, item(pods_path, i++)));
  }
  if (const Member g = member(p, "podGroup"))
    in.pod_group = detail::decode_pod_group(*g, "params.podGroup");
  if (const Member t = member(p, "tensorBoard")) {
    object(*t, "params.tensorBoard");
    in.tensorboard = controllers::TensorBoardObservation{
        string(need(*t, "params.tensorBoard", "uid"), "params.tensorBoard.uid"),
        boolean(need(*t, "params.tensorBoard", "ready"), "params.tensorBoard.ready")};
  }
  if (const Member x = member(p, "nowMicros")) {
    in.now = micros_time(*x, "params.nowMicros");
  } else {
    in.now = timestamp(need(p, "params", "now"), "params.now");
  }
  if (const Member o = member(p, "options"))
    in.options = detail::decode_options(*o, "params.options");
  return in;
}

std::string reconcile_result(const controllers::ReconcileResult& r) {
  Writer w;
  w.begin_object().key("actions").begin_array();
  for (const auto& a : r.actions) write_action(w, a);
  w.end_array();
  write_status(w.key("status"), r.status);
  if (r.requeue_after) w.key("requeueAfterMicros").integer(r.requeue_after->count());
  w.end_object();
  return w.take();
}

controllers::ReconcileResult decode_reconcile_result(const Reply& reply) {
  const Value& r = object(reply.impl_->result, "result");
  controllers::ReconcileResult out;
  if (const Member acts = member(r, "actions")) {
    std::size_t i = 0;
    const Path actions_path("result.actions");
    for (const auto& a : array(*acts, actions_path).items())
      out.actions.push_back(decode_action(a, item(actions_path, i++)));
  }
  out.status = detail::decode_status(need(r, "result", "status"), "result.status");
  out.requeue_after = duration_field(r, "result", "requeueAfterMicros", "requeueAfter");
  return out;
}

// ---- decide ----

std::string decide_params(const policies::ElasticObservation& o) {
  Writer w;
  w.begin_object();
  write_time(w.key("now"), o.now);
  w.key("nowMicros").integer(o.now.time_since_epoch().count()).key("freeGpus").integer(o.free_gpus);
  w.key("queues").begin_array();
  for (const auto& q : o.queues) {
    w.begin_object().key("name").string(q.name).key("priority").integer(q.priority);
    if (q.quota_gpu_milli) {
      w.key("quotaGpuMilli").integer(*q.quota_gpu_milli);
    } else {
      w.key("quotaGpuMilli").null();
    }
    w.key("allocatedGpuMilli").integer(q.allocated_gpu_milli).key("pending").begin_array();
    for (const auto& d : q.pending) {
      w.begin_object()
          .key("priority")
          .integer(d.priority)
          .key("gpuMilli")
          .integer(d.gpu_milli)
          .key("jobs")
          .integer(d.jobs)
          .end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().key("waiting").begin_array();
  for (const auto& x : o.waiting)
    w.begin_object().key("jobId").integer(x.job).key("priority").integer(x.priority).end_object();
  w.end_array().key("jobs").begin_array();
  for (const auto& j : o.jobs) {
    w.begin_object().key("job").string(j.name).key("jobId").integer(j.id).key("queue").string(
        j.queue);
    w.key("priority")
        .integer(j.priority)
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
  const Value& p = object(Decoders::params(request), "params");
  policies::ElasticObservation o;
  if (const Member x = member(p, "nowMicros")) {
    o.now = micros_time(*x, "params.nowMicros");
  } else {
    o.now = timestamp(need(p, "params", "now"), "params.now");
  }
  o.free_gpus = int64(need(p, "params", "freeGpus"), "params.freeGpus");
  std::size_t i = 0;
  const Path queues_path("params.queues");
  for (const auto& q : array(need(p, "params", "queues"), queues_path).items()) {
    const Path qp = item(queues_path, i++);
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
        v.pending.push_back({int32(need(d, dp, "priority"), child(dp, "priority")),
                             int64(need(d, dp, "gpuMilli"), child(dp, "gpuMilli")),
                             int32(need(d, dp, "jobs"), child(dp, "jobs"))});
      }
    }
    o.queues.push_back(std::move(v));
  }
  i = 0;
  const Path waiting_path("params.waiting");
  for (const auto& w : array(need(p, "params", "waiting"), waiting_path).items()) {
    const Path wp = item(waiting_path, i++);
    object(w, wp);
    o.waiting.push_back({int32(need(w, wp, "priority"), child(wp, "priority")),
                         static_cast<m::JobId>(int64(need(w, wp, "jobId"), child(wp, "jobId")))});
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
    if (const Member x = member(j, "priority")) v.priority = int32(*x, child(jp, "priority"));
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
  const Value& r = object(reply.impl_->result, "result");
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

// ---- pieces ----

namespace {
template <class F>
auto decode_text(std::string_view text, const char* what, F f) {
  const json::Document doc = json::Document::parse(text, what);
  return f(doc.root(), Path(what));
}
}  // namespace

std::string pod_json(const m::Pod& pod) {
  Writer w;
  write_pod(w, pod);
  return w.take();
}
m::Pod decode_pod(std::string_view json) { return decode_text(json, "pod", detail::decode_pod); }
std::string pod_group_json(const m::PodGroup& g) {
  Writer w;
  write_pod_group(w, g);
  return w.take();
}
m::PodGroup decode_pod_group(std::string_view json) {
  return decode_text(json, "podGroup", detail::decode_pod_group);
}
std::string status_json(const m::JobStatus& s) {
  Writer w;
  write_status(w, s);
  return w.take();
}
m::JobStatus decode_status(std::string_view json) {
  return decode_text(json, "status", detail::decode_status);
}
std::string options_json(const controllers::ControllerOptions& o) {
  Writer w;
  write_options(w, o);
  return w.take();
}
controllers::ControllerOptions decode_options(std::string_view json) {
  return decode_text(json, "options", detail::decode_options);
}

}  // namespace t9k::protocol
