// The plugin protocol (docs/protocol.md, docs/protocol-v2.md): JSON-RPC 2.0, one JSON object per
// line, lock-step. This library turns the simulator's types into the protocol's messages and back,
// exactly: a request decoded on the other side and its answer decoded here give the same values as
// the call in process. No JSON type appears in this header; the wire is text.
//
// Errors: ProtocolError, whose message names the offending field by its path in the message
// ("result.actions[2].pod.metadata.name: expected a string, found 3").
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "controllers/controller.hpp"
#include "policies/elastic.hpp"

namespace t9k::protocol {

// Version 1, and the version of `initialize` itself in every version (docs/protocol-v2.md §1).
inline constexpr std::string_view kProtocolVersion = "1";

namespace detail {
struct Access;  // protocol/ internal: what the messages read of a parsed line
}

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Role { Controller, ElasticPolicy };
std::string_view to_string(Role r);  // "controller" | "elasticPolicy"

// What a plugin answered to `initialize`.
struct Hello {
  std::string protocol_version;
  std::string name;     // the plugin's own name (for messages); may be empty
  bool decides = true;  // elastic policies: false = never call `decide` (fixed)
  // Controllers: the kinds of its own it declares (docs/protocol.md §4 "kinds").
  std::vector<model::PluginKindRule> kinds;
};

// ---- a controller plugin's own kinds (plugin_kinds.cpp) ----

// The replica specs of `job` where `rule` says they are; throws ProtocolError naming the field
// ("spec.pytorchReplicaSpecs.Worker.replicas: ...").
std::vector<model::PluginReplicaSpec> plugin_replica_specs(const model::PluginJob& job,
                                                           const model::PluginKindRule& rule);
// Completes a status the plugin wrote for a job of its own kind (status.plugin_status): its
// phase by the rule's conditions, when it started (its first status) and finished (its first
// terminal phase). Throws ProtocolError when the status is not an object or a condition is
// malformed.
void read_plugin_status(const model::PluginKindRule& rule, const model::JobStatus& before,
                        model::SimTime now, model::JobStatus& status);

// The policy's settings as initialize passes them (controllers.options spellings).
struct PolicySettings {
  std::string policy;  // the built-in the scenario names, for plugins that serve several
  policies::PolicyOptions options;
  kernel::SimDuration period{0};
};

// ---- messages the simulator sends ----

std::string request_line(std::int64_t id, std::string_view method, std::string_view params_json);
std::string initialize_params(Role role, const std::vector<std::string>& kinds,
                              std::string_view simulator_version,
                              const controllers::ControllerOptions& controller_options,
                              const PolicySettings& policy_settings);
std::string reconcile_params(const controllers::ReconcileInput& input);
std::string job_json(const model::Job& job);

// Encodes jobs as reconcile sends them, keeping each job's JSON without its status: a job's spec
// rarely changes, its status does at every reconcile.
class JobEncoder {
 public:
  JobEncoder();
  ~JobEncoder();
  std::string encode(const model::Job& job);
  // The job's JSON without its status (version 2 sends statuses apart).
  std::string encode_without_status(const model::Job& job);

 private:
  const std::string& head(const model::Job& job);
  struct Entry;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> by_uid_;
};
std::string reconcile_params(JobEncoder& jobs, const controllers::ReconcileInput& input);
std::string decide_params(const policies::ElasticObservation& observation);

// A reply to the request `expected_id`: its result, or the error the plugin returned.
class Reply {
 public:
  // Throws ProtocolError for malformed JSON, a missing jsonrpc/id, another id, or an error
  // reply (its code and message quoted).
  static Reply parse(std::string_view line, std::int64_t expected_id);
  ~Reply();
  Reply(Reply&&) noexcept;

 private:
  friend struct detail::Access;
  struct Impl;
  explicit Reply(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

Hello decode_hello(const Reply& reply);
// `plugin_kind`: the job is of a kind of the plugin's own; its status is kept as written.
controllers::ReconcileResult decode_reconcile_result(const Reply& reply, bool plugin_kind = false);
// Decisions name jobs by "job" (namespace/name) or "jobId"; names are resolved with the
// observation the request carried.
policies::ElasticDecisions decode_decide_result(const Reply& reply,
                                                const policies::ElasticObservation& observation);

// ---- the other side: what a plugin receives and answers (t9ksim plugin serve) ----

// The jobs a server decoded, by their JSON without status: a job's spec is decoded once.
class JobCache {
 public:
  JobCache();
  ~JobCache();
  const model::Job* find(std::string_view key) const;
  void insert(std::string key, model::Job job);

 private:
  std::map<std::string, model::Job, std::less<>> jobs_;
};

class Request {
 public:
  // Throws ProtocolError for malformed JSON or a missing method.
  static Request parse(std::string_view line);
  ~Request();
  Request(Request&&) noexcept;
  const std::string& method() const;
  // The request id as JSON text ("7"), or empty for a notification.
  const std::string& id_json() const;

 private:
  friend struct detail::Access;
  struct Impl;
  explicit Request(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct InitializeRequest {
  std::string protocol_version;
  std::vector<std::string> protocol_versions;  // what the simulator speaks ("1", "2")
  Role role = Role::Controller;
  std::vector<std::string> kinds;
  controllers::ControllerOptions controller_options;
  PolicySettings policy_settings;
};

// A reconcile's input with owned values (ReconcileInput only refers to them).
struct OwnedReconcileInput {
  model::Job job;
  std::vector<model::Pod> pods;
  std::optional<model::PodGroup> pod_group;
  std::optional<controllers::TensorBoardObservation> tensorboard;
  model::SimTime now{};
  controllers::ControllerOptions options;
  controllers::ReconcileInput view() const {
    return {job, pods, pod_group ? &*pod_group : nullptr, tensorboard, now, options};
  }
};

InitializeRequest decode_initialize(const Request& request);
OwnedReconcileInput decode_reconcile(const Request& request, JobCache& jobs);
policies::ElasticObservation decode_decide(const Request& request);

std::string result_line(const std::string& id_json, std::string_view result_json);
std::string error_line(const std::string& id_json, int code, std::string_view message);
std::string hello_result(const Hello& hello);
std::string reconcile_result(const controllers::ReconcileResult& result);
std::string decide_result(const policies::ElasticDecisions& decisions,
                          const policies::ElasticObservation& observation);

// ---- differential testing ----

// Where two JSON values first differ: the path from `root` ("result.status.phase") and the
// values there as JSON text ("(absent)" for a missing member or item).
struct Difference {
  std::string path;
  std::string a, b;
};
std::optional<Difference> first_difference(std::string_view a, std::string_view b,
                                           const std::string& root);

// ---- pieces, for tests and tools ----

// Whether two jobs have the same metadata and spec (their statuses aside).
bool same_except_status(const model::Job& a, const model::Job& b);

std::string pod_json(const model::Pod& pod);
model::Pod decode_pod(std::string_view json);
std::string pod_group_json(const model::PodGroup& group);
model::PodGroup decode_pod_group(std::string_view json);
std::string status_json(const model::JobStatus& status);
model::JobStatus decode_status(std::string_view json);
std::string options_json(const controllers::ControllerOptions& options);
controllers::ControllerOptions decode_options(std::string_view json);

}  // namespace t9k::protocol
