// The protocol's messages: JSON-RPC framing, initialize, reconcile and decide, both sides.
#include <algorithm>

#include <fmt/format.h>

#include "protocol/envelope.hpp"
#include "protocol/v2.hpp"
#include "scenarios/format/manifests.hpp"
#include "scenarios/format/serialize.hpp"

namespace t9k::protocol {

using namespace detail;
namespace m = t9k::model;

std::string_view to_string(Role r) {
  return r == Role::Controller ? "controller" : "elasticPolicy";
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

std::span<const std::string_view> protocol_versions() {
  static constexpr std::string_view kVersions[] = {kProtocolVersion, kProtocolVersion2};
  return kVersions;
}

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

// ---- initialize ----

std::string initialize_params(Role role, const std::vector<std::string>& kinds,
                              std::string_view simulator_version,
                              const controllers::ControllerOptions& controller_options,
                              const PolicySettings& policy) {
  Writer w;
  w.begin_object()
      .key("protocolVersion")
      .string(kProtocolVersion)
      .key("protocolVersions")
      .begin_array();
  for (const auto v : protocol_versions()) w.string(v);
  w.end_array().key("role").string(to_string(role));
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
  const Value& p = object(Access::params(request), "params");
  InitializeRequest r;
  r.protocol_version = string(need(p, "params", "protocolVersion"), "params.protocolVersion");
  // A simulator before version 2 offered its one version only.
  if (const Member v = member(p, "protocolVersions")) {
    r.protocol_versions = strings(*v, "params.protocolVersions");
  } else {
    r.protocol_versions = {r.protocol_version};
  }
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
  w.key("capabilities").begin_object().key("decide").boolean(h.decides).end_object();
  if (!h.kinds.empty()) {
    w.key("kinds").begin_array();
    for (const auto& k : h.kinds) detail::write_kind_rule(w, k);
    w.end_array();
  }
  w.end_object();
  return w.take();
}

Hello decode_hello(const Reply& reply) {
  const Value& r = object(Access::result(reply), "result");
  Hello h;
  h.protocol_version = string(need(r, "result", "protocolVersion"), "result.protocolVersion");
  h.name = opt_string(r, "result", "name");
  if (const Member c = member(r, "capabilities")) {
    if (const Member d = member(object(*c, "result.capabilities"), "decide"))
      h.decides = boolean(*d, "result.capabilities.decide");
  }
  if (const Member ks = member(r, "kinds")) {
    const detail::Path kp("result.kinds");
    std::size_t i = 0;
    for (const auto& k : array(*ks, kp).items())
      h.kinds.push_back(detail::decode_kind_rule(k, detail::item(kp, i++)));
  }
  return h;
}

// ---- reconcile ----

std::string job_json(const m::Job& job) {
  return scenarios::to_compact_json(scenarios::to_object(job));
}

namespace detail {

void write_tensorboard(Writer& w, const controllers::TensorBoardObservation* t) {
  if (!t) {
    w.null();
    return;
  }
  w.begin_object().key("uid").string(t->uid).key("ready").boolean(t->ready).end_object();
}

controllers::TensorBoardObservation decode_tensorboard(const Value& j, const Path& path) {
  object(j, path);
  return {string(need(j, path, "uid"), child(path, "uid")),
          boolean(need(j, path, "ready"), child(path, "ready"))};
}

m::Job cached_job(const Value& job, const Path& path, JobCache& jobs) {
  // The job without its status, as written, keys its decoded spec: a job's spec changes rarely.
  std::string key;
  for (const char* k : {"apiVersion", "kind", "metadata", "spec"}) {
    key += job.find(k).raw();
    key += '\n';
  }
  if (const m::Job* cached = jobs.find(key)) return *cached;
  m::Job out = detail::decode_job(job, path);
  m::status_of(out) = {};
  jobs.insert(std::move(key), out);
  return out;
}

}  // namespace detail

struct JobEncoder::Entry {
  m::Job without_status;
  std::string head;  // the job's JSON without status, without its closing brace
};

JobEncoder::JobEncoder() = default;
JobEncoder::~JobEncoder() = default;

const std::string& JobEncoder::head(const m::Job& job) {
  const std::string_view uid = m::metadata_of(job).uid;
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end() || !same_except_status(it->second->without_status, job)) {
    if (by_uid_.size() > 4096) by_uid_.clear();  // bounded: a long run sees each job briefly
    auto e = std::make_unique<Entry>();
    e->without_status = job;
    m::status_of(e->without_status) = {};
    e->head = job_json(e->without_status);
    e->head.pop_back();  // '}'
    it = by_uid_.insert_or_assign(std::string(uid), std::move(e)).first;
  }
  return it->second->head;
}

std::string JobEncoder::encode_without_status(const m::Job& job) { return head(job) + '}'; }

std::string JobEncoder::encode(const m::Job& job) {
  const m::JobStatus& status = m::status_of(job);
  std::string out = head(job);
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
  write_tensorboard(w.key("tensorBoard"), in.tensorboard ? &*in.tensorboard : nullptr);
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
  const Value& p = object(Access::params(request), "params");
  OwnedReconcileInput in;
  const Value job = object(need(p, "params", "job"), "params.job");
  in.job = cached_job(job, "params.job", jobs);
  if (const Member st = member(job, "status"))
    m::status_of(in.job) = detail::decode_status(*st, "params.job.status");
  std::size_t i = 0;
  const Path pods_path("params.pods");
  for (const auto& pod : array(need(p, "params", "pods"), pods_path).items()) {
    in.pods.push_back(detail::decode_pod(pod, item(pods_path, i++)));
  }
  if (const Member g = member(p, "podGroup"))
    in.pod_group = detail::decode_pod_group(*g, "params.podGroup");
  if (const Member t = member(p, "tensorBoard"))
    in.tensorboard = decode_tensorboard(*t, "params.tensorBoard");
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
  if (!r.events.empty()) write_events(w.key("events"), r.events);
  w.end_object();
  return w.take();
}

controllers::ReconcileResult decode_reconcile_result(const Reply& reply, bool plugin_kind) {
  const Value& r = object(Access::result(reply), "result");
  controllers::ReconcileResult out;
  if (const Member acts = member(r, "actions")) {
    std::size_t i = 0;
    const Path actions_path("result.actions");
    for (const auto& a : array(*acts, actions_path).items())
      out.actions.push_back(decode_action(a, item(actions_path, i++)));
  }
  out.status = plugin_kind
                   ? detail::decode_plugin_status(need(r, "result", "status"), "result.status")
                   : detail::decode_status(need(r, "result", "status"), "result.status");
  out.requeue_after = duration_field(r, "result", "requeueAfterMicros", "requeueAfter");
  if (const Member ev = member(r, "events")) out.events = decode_events(*ev, "result.events");
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
