// The three job kinds of batch.tensorstack.dev/v1beta1 simulated by t9ksim, with their status.
// Field names follow the API reference pages in shared/seeds/; defaults are given here, where
// the type is declared, each citing where it comes from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "model/boxed.hpp"
#include "model/compact_vector.hpp"
#include "model/heap_optional.hpp"
#include "model/meta.hpp"
#include "model/pod_template.hpp"
#include "model/shared.hpp"
#include "model/text.hpp"

namespace t9k::model {

inline constexpr const char* kBatchApiVersion = "batch.tensorstack.dev/v1beta1";

// ---- Shared spec parts ----

struct T9kScheduler {
  Text queue;  // seeds: required by the reference page; PodGroup default "default" (§8.3)
  std::int32_t priority =
      0;  // API T9kScheduler: "[0, 100]. Default to 0" (§8.1; the reference page's "10" is older)
  bool operator==(const T9kScheduler&) const = default;
};

// spec.scheduler: unset => Kubernetes default scheduler (§8.1).
struct SchedulePolicy {
  std::optional<T9kScheduler> t9k_scheduler;
  bool operator==(const SchedulePolicy&) const = default;
};

struct ReplicaDebugSet {
  std::string type;
  bool skip_init_container = false;  // API: default false
  // Empty means the default: ["sleep", "inf"] (API ReplicaDebugSet.command), or
  // ["/usr/sbin/sshd", "-D"] for DeepSpeedJob (§5, §7.1). See default_debug_command().
  std::vector<std::string> command;
  bool operator==(const ReplicaDebugSet&) const = default;
};

struct DebugMode {
  bool enabled = false;
  std::vector<ReplicaDebugSet> replica_specs;  // omitted => defaults for all replicas (§7.1)
  bool operator==(const DebugMode&) const = default;
};

struct ResumeSpec {
  std::string type;
  bool skip_init_container = false;
  std::vector<std::string> command;  // empty => the template's command (§7.2)
  std::vector<std::string> args;
  bool operator==(const ResumeSpec&) const = default;
};

struct PauseMode {
  bool enabled = false;
  std::vector<ResumeSpec> resume_specs;  // immutable after creation (§7.2)
  bool operator==(const PauseMode&) const = default;
};

// Immediate mode is "neither debug nor pause enabled" (API RunMode).
struct RunMode {
  DebugMode debug;
  PauseMode pause;
  bool operator==(const RunMode&) const = default;
};

// PyTorchTrainingJob and DeepSpeedJob (§2.3, §6).
struct RunPolicy {
  std::optional<std::int64_t> active_deadline_seconds;  // positive when set (API)
  std::int32_t backoff_limit = 3;  // default 3 (§2.3, UM pytorchtrainingjob.md L190)
  CleanUpPolicy clean_up_policy = CleanUpPolicy::None;  // default None (§6.2, §11 Q16)
  bool operator==(const RunPolicy&) const = default;
};

struct ElasticConfig {
  bool enabled = false;
  std::int32_t min_replicas = 0;       // immutable after creation (API ElasticConfig)
  std::int32_t max_replicas = 0;       // immutable after creation
  std::int32_t expected_replicas = 0;  // may change at any time (§4.3)
  bool operator==(const ElasticConfig&) const = default;
};

// ---- GenericJob (§3) ----

struct GenericRestartPolicy {
  RestartPolicyType policy = RestartPolicyType::OnFailure;  // API: default OnFailure (§2.1)
  std::int32_t limit = 0;  // API: default 0 (§2.1, §11 Q3 per rank)
  bool operator==(const GenericRestartPolicy&) const = default;
};

// A set of replicas: replica type -> ranks (§3.1). Ordered by type for stable messages.
struct FinishRule {
  std::map<std::string, std::vector<std::int32_t>> replicas;
  bool operator==(const FinishRule&) const = default;
};

struct ServicePort {
  std::string name;
  std::int32_t port = 0;
  bool operator==(const ServicePort&) const = default;
};

struct ServiceOption {
  std::vector<ServicePort> ports;
  bool operator==(const ServiceOption&) const = default;
};

struct GenericReplicaSpec {
  Text type;
  std::int32_t replicas = 1;  // API: default 1 (§3.3)
  GenericRestartPolicy restart_policy;
  Shared<PodTemplateSpec> template_;  // shared by copies of the job (model/shared.hpp)
  bool operator==(const GenericReplicaSpec&) const = default;
};

struct GenericJobSpec {
  // None => all replicas succeeded / any replica failed terminally (§11 Q2); nearly every job has
  // none, so a pointer each and no block (the largest spec sets every job's size; issue 49).
  CompactVector<FinishRule> success_rules;
  CompactVector<FinishRule> failure_rules;
  std::optional<ServiceOption> service;  // default: no service (§3.2)
  Shared<RunMode> run_mode;              // nearly always the default: one value shared by every job
  CleanUpPolicy clean_up_policy = CleanUpPolicy::None;  // API: default None (§3.3, §6.2)
  SchedulePolicy scheduler;
  std::vector<GenericReplicaSpec> replica_specs;  // at least one (API)
  bool operator==(const GenericJobSpec&) const = default;
};

// ---- PyTorchTrainingJob (§4) ----

struct TorchrunConfig {
  bool enabled = false;
  std::int32_t max_restarts = 0;  // torchrun's in-pod restart budget (§4.2); torchrun's default 0
  std::string proc_per_node = "1";               // "N" or "gpu"; torchrun's default 1
  RdzvBackend rdzv_backend = RdzvBackend::c10d;  // API: defaults to c10d
  std::vector<std::string> extra_options;
  bool operator==(const TorchrunConfig&) const = default;
};

struct TensorBoardSpec {
  std::string image;
  std::vector<std::string> training_log_filesets;
  bool operator==(const TensorBoardSpec&) const = default;
};

struct PyTorchReplicaSpec {
  std::string type;
  std::int32_t replicas = 1;                   // API: default 1
  std::optional<std::int32_t> scaling_weight;  // elastic only; unset weight counts as 1 (§11 Q8)
  // The reference page: "Defaults to Never" (shared/seeds/pytorchtrainingjob-reference.md).
  RestartPolicyType restart_policy = RestartPolicyType::Never;
  Shared<PodTemplateSpec> template_;  // shared by copies of the job (model/shared.hpp)
  bool operator==(const PyTorchReplicaSpec&) const = default;
};

struct PyTorchTrainingJobSpec {
  std::vector<PyTorchReplicaSpec>
      replica_specs;  // required; the first type's rank 0 is master (§4.1)
  std::optional<ElasticConfig> elastic;
  // Rare: on the heap, or every model::Job (the variant) would be as large as this kind's.
  HeapOptional<TorchrunConfig> torchrun_config;
  Shared<RunMode> run_mode;  // nearly always the default: one value shared by every job
  RunPolicy run_policy;
  HeapOptional<TensorBoardSpec> tensorboard_spec;  // rare, likewise
  SchedulePolicy scheduler;
  bool operator==(const PyTorchTrainingJobSpec&) const = default;
};

// ---- DeepSpeedJob (§5) ----

// Exactly one of python | module | exec, unless customCommand is set (§5).
struct RunType {
  std::optional<std::vector<std::string>> python;
  std::optional<std::vector<std::string>> module;
  std::optional<std::vector<std::string>> exec;
  bool operator==(const RunType&) const = default;
};

struct DeepSpeedConfig {
  std::optional<std::string> custom_command;
  std::optional<std::int32_t> slots_per_worker;  // normally the GPUs per worker (API Config)
  bool local_rank = true;                        // §5: default true
  AutotuneType autotune = AutotuneType::none;    // §5: default none
  RunType run;
  std::vector<std::string> other_args;
  bool operator==(const DeepSpeedConfig&) const = default;
};

struct DeepSpeedWorker {
  std::int32_t replicas = 1;          // [INFERRED] same default as the other kinds' replicas
  Shared<PodTemplateSpec> template_;  // shared by copies of the job (model/shared.hpp)
  RestartPolicyType restart_policy = RestartPolicyType::OnFailure;  // API Worker: default OnFailure
  bool operator==(const DeepSpeedWorker&) const = default;
};

struct DeepSpeedJobSpec {
  SchedulePolicy scheduler;
  RunPolicy run_policy;
  Shared<RunMode> run_mode;  // nearly always the default: one value shared by every job
  std::optional<ElasticConfig> elastic;
  // Boxed: inline, it made every model::Job (the variant) 176 bytes larger (issue 49).
  Boxed<DeepSpeedConfig> config;
  bool disable_custom_env = false;  // API: default false
  DeepSpeedWorker worker;
  bool operator==(const DeepSpeedJobSpec&) const = default;
};

// ---- Status (§1) ----

struct JobCondition {
  JobConditionType type = JobConditionType::Initialized;
  ConditionStatus status = ConditionStatus::Unknown;
  SimTime last_transition_time{};
  Text reason;  // copied into every status a reconcile builds: Text, not std::string (text.hpp)
  Text message;
  bool operator==(const JobCondition&) const = default;
};

struct ContainerStatus {
  Text name;
  Text state;  // "waiting" | "running" | "terminated": Text, a view of the literal
  std::optional<std::int32_t> exit_code;
  bool operator==(const ContainerStatus&) const = default;
};

struct ReplicaStatus {  // one per pod of every job: small fields last (64 bytes, not 72)
  Text name;
  Text uid;
  std::vector<ContainerStatus> containers;
  // Controller-counted restarts of this rank (GenericJob restartPolicy.limit is per rank, §11 Q3).
  std::int32_t restart_count = 0;
  ReplicaPhase phase = ReplicaPhase::Creating;
  bool operator==(const ReplicaStatus&) const = default;
};

struct TaskStatus {
  Text type;
  std::int32_t restart_count = 0;  // summed over the type's replicas (§1.3)
  std::vector<ReplicaStatus> replicas;
  bool operator==(const TaskStatus&) const = default;
};

// Counters that partition the job's replica slots (§1.3).
struct Aggregate {
  std::int32_t creating = 0, pending = 0, running = 0, succeeded = 0, failed = 0, unknown = 0,
               deleted = 0;
  std::int32_t total() const {
    return creating + pending + running + succeeded + failed + unknown + deleted;
  }
  bool operator==(const Aggregate&) const = default;
};

struct ObjectReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string namespace_;
  std::string uid;
  bool operator==(const ObjectReference&) const = default;
};

// The TensorBoard dependent's status (§9).
struct DependentStatus {
  std::string name;
  ObjectReference dependent;
  bool ready = false;
  std::string reason;
  std::string action;
  std::string note;
  std::string type;  // Normal | Warning
  bool operator==(const DependentStatus&) const = default;
};

struct JobStatus {
  std::optional<JobPhase> phase;  // unset until the first reconcile
  std::vector<JobCondition> conditions;
  Aggregate aggregate;
  std::vector<TaskStatus> tasks;
  std::optional<std::int32_t> backoff_count;  // PyTorch and DeepSpeed only (§1.3)
  HeapOptional<DependentStatus> tensorboard;  // PyTorch only (§9); rare, so off the job's record
  // Controller bookkeeping (Kubeflow keeps startTime/completionTime in status too).
  OptionalTime start_time;       // first reconcile (§11 Q6)
  OptionalTime completion_time;  // terminal transition
  OptionalTime active_since;  // deadline clock start: unset while Paused, reset on resume (§11 Q6)
  std::optional<std::int32_t>
      elastic_replicas;  // elastic scale training last (re)started with (§4.3, §11 Q8)
  // A PluginJob's status as its controller wrote it (a JSON object's text); `phase` is read
  // from its conditions by the kind's rule (PluginKindRule). Unset for the T9k kinds.
  HeapOptional<std::string> plugin_status;
  bool operator==(const JobStatus&) const = default;
};

// ---- The objects ----

struct GenericJob {
  ObjectMeta metadata;
  GenericJobSpec spec;
  JobStatus status;
  bool operator==(const GenericJob&) const = default;
};

struct PyTorchTrainingJob {
  ObjectMeta metadata;
  PyTorchTrainingJobSpec spec;
  JobStatus status;
  bool operator==(const PyTorchTrainingJob&) const = default;
};

struct DeepSpeedJob {
  ObjectMeta metadata;
  DeepSpeedJobSpec spec;
  JobStatus status;
  bool operator==(const DeepSpeedJob&) const = default;
};

// ---- A kind only a controller plugin knows (docs/plugins-go.md "Kinds of your own") ----

// One replica type of a PluginJob, read from its spec by the kind's rule: how many pods of which
// template. It is the job's shape for the scheduler and the outputs; the controller still
// decides which pods exist.
struct PluginReplicaSpec {
  std::string type;
  std::int32_t replicas = 1;
  Shared<PodTemplateSpec> template_;  // shared by copies of the job (model/shared.hpp)
  bool operator==(const PluginReplicaSpec&) const = default;
};

struct PluginJobSpec {
  std::string json;  // the manifest's spec, as JSON text: what the plugin is sent
  std::vector<PluginReplicaSpec> replica_specs;  // resolved at submission (PluginKindRule)
  SchedulePolicy scheduler;  // always the default scheduler: the kind has no T9k scheduler field
  Shared<RunMode> run_mode;  // always immediate: the world cannot pause a kind it does not know
  bool operator==(const PluginJobSpec&) const = default;
};

struct PluginJob {
  // Text, not std::string: the largest kind sets the size of every job (issue 49).
  Text api_version;  // "kubeflow.org/v1"
  Text kind;         // "PyTorchJob"
  ObjectMeta metadata;
  PluginJobSpec spec;
  JobStatus status;
  bool operator==(const PluginJob&) const = default;
};

// What a controller plugin declares of a kind it serves (at initialize): where the job's replica
// specs are, and how its phase is read from its status conditions.
struct PluginKindRule {
  std::string api_version;
  std::string kind;
  // Path of the replica specs from the job's root, e.g. {"spec", "pytorchReplicaSpecs"}: a map
  // of type -> {replicas, template} (Kubeflow) or a list of {name or type, replicas, template}.
  std::vector<std::string> replica_specs;
  // The phase is that of the first entry whose condition type has status "True", in this order;
  // Pending when none has.
  struct PhaseFrom {
    std::string condition;
    JobPhase phase = JobPhase::Pending;
    bool operator==(const PhaseFrom&) const = default;
  };
  std::vector<PhaseFrom> phases;
  bool operator==(const PluginKindRule&) const = default;
};

using Job = std::variant<GenericJob, PyTorchTrainingJob, DeepSpeedJob, PluginJob>;

JobKind kind_of(const Job& job);
// "GenericJob", ..., or a PluginJob's own kind; and its apiVersion.
std::string_view kind_name(const Job& job);
std::string_view api_version_of(const Job& job);
// A pod's replica type names a plugin kind's replica spec ignoring case: Kubeflow's spec says
// "Master", its pods' label "master".
bool same_replica_type(std::string_view a, std::string_view b);
const ObjectMeta& metadata_of(const Job& job);
ObjectMeta& metadata_of(Job& job);
const JobStatus& status_of(const Job& job);
JobStatus& status_of(Job& job);
const SchedulePolicy& scheduler_of(const Job& job);
const RunMode& run_mode_of(const Job& job);

// The default debug command for a kind (§7.1): ["sleep","inf"], or ["/usr/sbin/sshd","-D"] for
// DeepSpeedJob.
std::vector<std::string> default_debug_command(JobKind kind);

}  // namespace t9k::model
