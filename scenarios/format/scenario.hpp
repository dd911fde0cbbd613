// Scenario file format v1 (docs/scenario-format.md): the cluster, the scheduler and its queues,
// controller and kubelet latencies, faults, the workload, scheduled operations, the run length
// and an optional block of expectations for regression tests. These are the typed results of
// loading a scenario file (load.hpp); they use model and kernel types only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernel/random.hpp"
#include "kernel/time.hpp"
#include "model/cluster.hpp"
#include "model/jobs.hpp"
#include "model/scheduling.hpp"
#include "scenarios/format/diagnostics.hpp"
#include "scenarios/format/manifests.hpp"

namespace t9k::scenarios {

using kernel::SimDuration;
using kernel::SimTime;

inline constexpr const char* kScenarioApiVersion = "t9ksim/v1";
inline constexpr const char* kScenarioKind = "Scenario";

// A random duration: a distribution over seconds (kernel::Distribution is real-valued). A plain
// duration in the file ("30s") is a Constant. Draws below zero are clamped to zero by users.
struct DurationDistribution {
  kernel::Distribution seconds{kernel::Constant{0}};
  static DurationDistribution constant(SimDuration d);
  // The mean, rounded to whole microseconds.
  SimDuration mean() const;
  // A draw in whole microseconds; non-positive draws are 0, huge ones capped at 10^12 s.
  SimDuration draw(kernel::Rng& rng) const;
  // A constant's draw, which needs no generator (a trace's run times); nullopt for the others.
  std::optional<SimDuration> fixed() const;
  bool operator==(const DurationDistribution&) const = default;
};

// ---- cluster ----

struct NodePool {
  std::string name;  // nodes are named "<pool>-<index>", index from 0
  std::int32_t count = 0;
  std::int32_t gpus_per_node = 0;
  std::string gpu_resource =
      model::kResourceGpu;              // what gpusPerNode counts: one of Cluster::accelerators
  std::string gpu_model;                // becomes label nvidia.com/gpu.product
  model::Quantity cpu;                  // per node
  model::Quantity memory;               // per node
  model::ResourceList extra_resources;  // e.g. rdma/rdma_shared_device_a: 1
  model::Labels labels;
  // From an export (docs/traces.md "Cluster from an export"): the nodes' own names (count of
  // them, in order; empty: "<pool>-<index>") and those cordoned there (spec.unschedulable).
  std::vector<std::string> node_names;
  std::vector<std::string> cordoned;
  // What a node costs and draws (docs/outputs.md "Cost and energy"): 0 = not costed / not metered.
  double price_per_node_hour = 0;  // pricePerNodeHour, in the scenario's currency
  double idle_watts = 0;           // power.idleWatts: drawn while installed
  double busy_watts = 0;           // power.busyWatts: with every GPU allocated (>= idleWatts)
  // Node capacity as the world builds it: cpu, memory, gpusPerNode of gpu_resource and the extras.
  model::ResourceList capacity() const;
};

// Nodes fill racks in pool order, racks fill switches; 0 means "one rack / one switch for all".
struct Topology {
  std::int32_t nodes_per_rack = 0;
  std::int32_t racks_per_switch = 0;
};

struct Cluster {
  std::vector<NodePool> node_pools;  // with fromTrace: the file's pools, then the trace's
  std::string from_trace;   // name of the trace entry whose cluster is added (docs/traces.md)
  std::string from_export;  // a k8s export whose Nodes and Queues are added (resolved path)
  // Resource names counted as GPUs (GPU-hours, utilisation, GPU faults, the greedy policy);
  // pools of other accelerators (hygon.com/dcu, amd.com/gpu) name theirs here.
  std::vector<std::string> accelerators{model::kResourceGpu};
  Topology topology;
  std::int32_t node_count() const;
};

// ---- scheduler, controllers, kubelet ----

enum class SchedulerKind { T9k, Default };

struct SchedulerSettings {
  SchedulerKind kind = SchedulerKind::T9k;
  std::vector<model::Queue> queues;  // T9k only; inline manifests or files
  // Free-form settings the chosen scheduler validates when it starts (e.g. "preemption": "true").
  std::map<std::string, std::string> options;
};

// A plugin process (docs/plugins.md): the command it runs, in which folder, how long one answer
// may take, and its name (its stderr goes to OUT/plugins/<name>.log).
struct PluginSpec {
  std::string name;
  std::vector<std::string> command;  // argv; the first element is looked up on PATH
  std::string working_dir;           // the scenario file's folder (or the caller's, from the CLI)
  SimDuration timeout = kernel::seconds(10);
  bool operator==(const PluginSpec&) const = default;
};

struct ControllerPlugin {
  model::JobKind kind = model::JobKind::GenericJob;
  PluginSpec plugin;
  // JobKind::Plugin: the kind it serves (apiVersion, kind), known to the simulator only by the
  // rule the plugin declares at initialize (model::PluginKindRule).
  std::string api_version;
  std::string kind_name;
  // Whether it serves `job` (by its kind, or apiVersion and kind for a plugin's own kind).
  bool serves(const model::Job& job) const;
};

struct ControllerSettings {
  // Delay between an observed change and the reconcile it triggers (design.md, plugin boundary).
  // [INFERRED] controller-runtime reacts within tens of milliseconds.
  DurationDistribution reconcile_latency =
      DurationDistribution::constant(kernel::milliseconds(100));
  std::map<std::string, std::string> options;
  // Set when options.elasticPolicy is {plugin: {...}} (options["elasticPolicy"] is then "plugin").
  std::optional<PluginSpec> elastic_policy_plugin;
};

struct KubeletSettings {
  // Pod creation to containers running (image pull, start). [INFERRED] a few seconds.
  DurationDistribution pod_start_latency = DurationDistribution::constant(kernel::seconds(5));
  // Deletion to gone; the grace period bounds it (Kubernetes default 30 s).
  DurationDistribution pod_stop_latency = DurationDistribution::constant(kernel::seconds(1));
};

// ---- faults (faults-and-validation §1.6) ----

struct FaultRates {
  double node_failures_per_node_day = 0;      // hardware, per node (§1.2-1.3)
  double switch_failures_per_switch_day = 0;  // correlated: takes out a switch's nodes (§1.7)
  double software_failures_per_job_hour = 0;  // per-job hazard that does not scale with size (§1.3)
};

struct FaultSettings {
  // "none", "h100-frontier", "a100-research", "a100-optimistic" (§1.6), or "custom".
  std::string profile = "none";
  std::optional<FaultRates> rates;  // set exactly when profile == "custom"
  // Pods on a failed node turn failed after this delay (spec §11 Q13: 40 s + 300 s).
  std::optional<DurationDistribution> detection_delay;
  std::optional<DurationDistribution> repair_time;  // failed node back in service
  std::optional<double> weibull_shape;  // inter-failure times Weibull(shape) instead of exponential
};

// ---- workload ----

struct ExitCodeWeight {
  std::int32_t exit_code = 1;
  double weight = 1;
  bool operator==(const ExitCodeWeight&) const = default;
};

// How the job's own code fails (faults-and-validation §1.3-1.4).
struct FailureBehaviour {
  double hazard_per_hour = 0;              // Poisson rate of failures while running
  std::vector<ExitCodeWeight> exit_codes;  // mix of exit codes of those failures; empty => {1: 1}
  std::int32_t final_exit_code = 0;        // exit code when the work completes
  bool operator==(const FailureBehaviour&) const = default;
};

enum class ScalingModel { Linear, Amdahl, Fixed, Table };

// How progress rate depends on the number of running replicas (elastic jobs, spec §4.3).
struct ElasticScaling {
  ScalingModel model = ScalingModel::Linear;
  double serial_fraction = 0;  // Amdahl only, in [0, 1)
  // Table only: throughput at a replica count relative to one replica; linear in between, flat
  // beyond the largest count, proportional below the smallest.
  std::map<std::int32_t, double> throughput;
  SimDuration rescale_overhead{0};  // every membership change restarts the processes (§11 Q8)
  bool operator==(const ElasticScaling&) const = default;
};

// One pod's run in a script (docs/scenario-format.md "scripted runs"): the pod exits with
// `exit_code` `after` this long running, or, without `after`, when the job's work completes.
struct ScriptedRun {
  std::int32_t exit_code = 0;
  std::optional<SimDuration> after;
  bool operator==(const ScriptedRun&) const = default;
};

// The runs of one replica type's pods (all ranks, or one): the n-th pod of a rank (its
// generation) ends as runs[n] says; the last entry repeats.
struct ReplicaScript {
  std::string type;
  std::optional<std::int32_t> rank;  // unset: every rank of the type
  std::vector<ScriptedRun> runs;     // at least one
  bool operator==(const ReplicaScript&) const = default;
};

struct JobBehaviour {
  // Exactly one of: wall-clock run time at the job's initial scale, or the amount of work in
  // replica-time (progress at 1 replica), which elastic jobs consume at the scaled rate.
  std::optional<DurationDistribution> run_time;
  std::optional<DurationDistribution> work;
  std::optional<SimDuration> checkpoint_interval;  // unset => never checkpoints
  SimDuration checkpoint_cost{0};                  // blocking write time per checkpoint
  DurationDistribution restart_overhead;           // restart to productive again (§1.5)
  FailureBehaviour failure;
  ElasticScaling scaling;
  // Scripted outcomes per replica; a rank's own entry wins over its type's.
  std::vector<ReplicaScript> replicas;
  // The script entry of a pod, or nullptr.
  const ScriptedRun* scripted_run(std::string_view type, std::int32_t rank,
                                  std::int32_t generation) const;
  bool operator==(const JobBehaviour&) const = default;
};

struct JobSubmission {
  model::Job job;
  SimTime submit_time{};
  JobBehaviour behaviour;
  std::string source;  // "file.yaml" or "file.yaml#2" where the manifest came from
};

// ---- synthetic workload generators (docs/scenario-format.md "generators") ----

// A random whole number: `real` drawn and rounded to nearest (halves away from zero), or one of
// `choices` by weight; the result is clamped to the quantity's allowed range by the generator.
struct IntDistribution {
  std::optional<kernel::Distribution> real;
  std::vector<std::pair<std::int64_t, double>> choices;  // (value, weight), weights sum > 0
  static IntDistribution constant(std::int64_t v);
};

// A random pick among names (restart policies, cleanUpPolicy), by weight.
struct ChoiceDistribution {
  std::vector<std::pair<std::string, double>> choices;  // weights sum > 0
};

enum class ArrivalKind { Interarrival, Poisson, Profile, Times };

// When jobs (or bursts of jobs) arrive. Simulation time zero is Monday 00:00.
struct ArrivalProcess {
  ArrivalKind kind = ArrivalKind::Interarrival;
  DurationDistribution interarrival;  // Interarrival: gaps between arrivals
  double gap_scale = 1;               // Interarrival: each gap times this (1 / demandFactor)
  double rate_per_hour = 0;           // Poisson and Profile: the (base) rate
  std::vector<double> hour_of_day;    // Profile: 24 multipliers (empty: all 1)
  std::vector<double> day_of_week;    // Profile: 7 multipliers, Monday first (empty: all 1)
  SimDuration week_offset{0};         // Profile: time zero is this long after Monday 00:00
  std::vector<SimTime> times;         // Times: sorted, absolute
};

// Elastic bounds drawn per job; unset fields keep the template's value.
struct ElasticDraw {
  std::optional<IntDistribution> min_replicas;
  std::optional<IntDistribution> max_replicas;
  std::optional<IntDistribution> expected_replicas;
};

// One kind of job a generator produces: a template plus what varies per job. Unset draws keep
// the template's (or the behaviour's) value.
struct JobClass {
  std::string name;    // job names are "<prefix>-<i>", i counting this class's jobs
  std::string prefix;  // "<generator>-<class>" (the template's name for single-template generators)
  double weight = 1;
  model::Job template_job;
  JobBehaviour behaviour;    // runTime / work are drawn by the generator and fixed per job
  std::string replica_type;  // the replica spec `replicas` varies (resolved at load)
  std::optional<IntDistribution> replicas;
  std::optional<ElasticDraw> elastic;
  std::optional<IntDistribution> gpus;  // per pod: nvidia.com/gpu
  std::optional<DurationDistribution> checkpoint_interval;
  std::optional<ChoiceDistribution> restart_policy;
  std::optional<IntDistribution> restart_limit;  // GenericJob restartPolicy.limit
  std::optional<IntDistribution> backoff_limit;  // PyTorch / DeepSpeed runPolicy
  std::optional<ChoiceDistribution> clean_up_policy;
  std::optional<DurationDistribution> active_deadline;  // whole seconds, >= 1
  std::optional<kernel::Distribution> hazard_per_hour;  // user-error hazard, >= 0
};

// A stream of jobs: an arrival process (optionally in bursts) and a weighted mix of classes.
struct GeneratorEntry {
  std::string name;
  ArrivalProcess arrivals;
  std::optional<IntDistribution> burst_size;  // set => each arrival is a burst of this many jobs
  std::vector<JobClass> classes;              // at least one
  std::optional<std::int64_t> count;          // jobs; unset => until `stop` or the horizon
  SimTime start{};
  std::optional<SimTime> stop;
};

enum class TraceFormat { Philly, AlibabaOpenB, Csv, K8sExport };

struct TraceData;  // scenarios/format/traces.hpp

// Jobs replayed from a cluster trace (docs/traces.md).
struct TraceEntry {
  std::string name;  // default: the format; names the sampling stream
  TraceFormat format = TraceFormat::Philly;
  std::string path;                   // resolved against the scenario file's folder
  std::optional<std::int64_t> limit;  // first N jobs (after window and sampling)
  SimDuration time_offset{0};         // the first replayed submission's time
  std::string queue;                  // one T9k queue for every job (empty: queues from the trace)
  std::optional<SimDuration> from;    // window on trace time since the origin below
  std::optional<SimDuration> to;
  // Trace time 0 (µs on the trace's clock): `epoch` when given, else the earliest submission over
  // all the scenario's trace entries, so several files of one cluster keep their spacing.
  std::optional<std::int64_t> epoch_us;
  std::optional<std::int64_t> origin_us;  // resolved by the loader
  double load_factor = 1;                 // inter-arrival gaps divided by this
  double sample = 1;                      // fraction of jobs kept (stream traces/<name>/sample)
  bool skip_bad_rows = false;
  std::map<std::string, std::string> options;
  // The loaded trace, shared by copies of the scenario (set when file references are allowed).
  std::shared_ptr<const TraceData> data;
};

struct Workload {
  std::vector<JobSubmission> jobs;
  std::vector<GeneratorEntry> generators;
  std::vector<TraceEntry> traces;
  // demandFactor: already applied to the generators' arrivals and the traces' loadFactor; kept
  // for the run's setup (docs/scenario-format.md "workload").
  double demand_factor = 1;
};

// ---- the cluster's state at time zero (docs/forecast.md) ----

// How much longer a job that was running at the export runs. `distribution`, when set, is drawn
// per job (stream initialState/remaining); otherwise `fraction_of_elapsed` times the run time it
// had when the export was taken. With `active_deadline`, a job whose runPolicy sets
// activeDeadlineSeconds runs until that deadline instead (the other model serves the rest).
struct RemainingModel {
  double fraction_of_elapsed = 1;
  std::optional<DurationDistribution> distribution;
  bool active_deadline = false;
};

struct InitialStateData;  // scenarios/format/traces.hpp

// spec.initialState: the simulation starts at the export's time with its running jobs placed on
// their recorded nodes and its waiting jobs queued in their creation order.
struct InitialState {
  std::string from_export;            // resolved path
  std::optional<std::int64_t> at_us;  // the export's time (Unix µs); unset: its latest timestamp
  RemainingModel remaining;
  // The run time of a job still waiting at the export; unset: the median run time of the
  // export's finished jobs.
  std::optional<DurationDistribution> queued_run_time;
  std::shared_ptr<const InitialStateData> data;  // set when file references are allowed
};

// ---- operations ----

enum class OperationType {
  PauseJob,
  ResumeJob,
  SetExpectedReplicas,
  CloseQueue,
  OpenQueue,
  DrainNode,
  CordonNode,
  UncordonNode,
  AddNodePool,
  RemoveNodePool,
  FailPod,
  DeletePod,
  FailNode,
  RepairNode,
  FailGpu,
  FailSwitch,
  SetQueue,
  SetJobPriority
};

// setQueue: the fields given replace the queue's (spec §8.2).
struct QueueEdit {
  std::optional<model::ResourceList> quota;  // quota.requests
  std::optional<std::int32_t> priority;
  std::optional<bool> preemptible;
  std::optional<bool> closed;
  std::optional<std::string> max_duration;  // the §8.2 grammar, checked at load
};

struct Operation {
  SimTime at{};
  OperationType type = OperationType::PauseJob;
  // job, queue, node, switch or pool name (AddNodePool: the new pool's name)
  std::string target;
  std::optional<std::int32_t> expected_replicas;  // SetExpectedReplicas
  std::optional<NodePool> node_pool;              // AddNodePool
  std::string replica_type;                       // FailPod, DeletePod
  std::int32_t rank = 0;                          // FailPod, DeletePod
  std::int32_t exit_code = 137;                   // FailPod
  std::optional<SimDuration>
      repair_after;                     // FailNode, FailGpu, FailSwitch: unset => until repairNode
  std::int32_t priority = 0;            // SetJobPriority
  std::optional<QueueEdit> queue_edit;  // SetQueue
};

// ---- expectations ----

struct IntBounds {
  std::optional<std::int64_t> min;
  std::optional<std::int64_t> max;
};

// Simulated time since zero.
struct TimeBounds {
  std::optional<SimDuration> min;
  std::optional<SimDuration> max;
};

// One pod of a job, by replica type, rank and generation (the n-th pod of that rank, from 0;
// unset: its last), as the change feed saw it.
struct PodExpectation {
  std::string replica_type;
  std::int32_t rank = 0;
  std::optional<std::int32_t> generation;
  std::optional<std::string> phase;  // Pending | Running | Succeeded | Failed | Unknown | Deleted
  std::optional<std::int32_t> exit_code;
  std::optional<std::string> deletion_reason;  // model::DeletionReason spelling
  std::optional<IntBounds> pods;               // how many pods that rank had in all
};

// One change of the feed (events.jsonl), matched in order; the fields given must match.
struct EventExpectation {
  std::string type;  // a change type of docs/outputs.md (JobPhaseChanged, PodReleased, ...)
  std::optional<std::string> job, pod, phase, reason, node;
  std::optional<std::int32_t> exit_code;
  std::optional<TimeBounds> at;
};

struct JobExpectation {
  std::string job;
  std::optional<std::string> phase;        // a JobPhase, or Rejected
  std::optional<std::string> reason;       // of the terminal condition (Completed / Failed)
  std::optional<IntBounds> restart_count;  // sum of tasks[].restartCount
  std::optional<IntBounds> backoff_count;
  std::vector<std::pair<std::string, TimeBounds>> phase_at;  // first time the job reached the phase
  std::vector<PodExpectation> pods;
  // Fields of the final object by path (`status.conditions[type=Failed].reason`), each with the
  // scalar it must equal, as text (numbers and booleans as written in JSON).
  std::vector<std::pair<std::string, std::string>> fields;
};

struct MetricBound {
  std::string metric;  // a summary.json metric name, checked by the analysis stage
  std::optional<double> min;
  std::optional<double> max;
};

struct Expectations {
  std::vector<JobExpectation> jobs;
  std::vector<MetricBound> metrics;
  std::vector<EventExpectation> events;  // in this order, other changes allowed between
};

// ---- the scenario ----

struct Scenario {
  std::string name;
  std::string description;
  // Where each free-form option value was written (spec.scheduler.options.backfill -> 1-based
  // line and column), so the simulator's own checks of them (sim::settings_from_scenario) can
  // point at the line as the loader's diagnostics do.
  std::map<std::string, std::pair<int, int>> option_marks;
  std::string default_namespace = "default";  // for objects without metadata.namespace
  Cluster cluster;
  SchedulerSettings scheduler;
  ControllerSettings controllers;
  KubeletSettings kubelet;
  FaultSettings faults;
  Workload workload;
  std::vector<Operation> operations;  // sorted by time, file order among equal times
  SimDuration horizon{0};             // required, > 0
  std::uint64_t seed = 1;
  std::int32_t replications = 1;
  std::optional<Expectations> expect;
  std::vector<ControllerPlugin>
      controller_plugins;                     // spec.plugins.controllers: at most one per kind
  std::optional<InitialState> initial_state;  // spec.initialState
};

// How many jobs one replication submits, estimated from the scenario before it runs (the budget
// behind --max-jobs, docs/reliability.md "Scenario budgets"): explicit jobs counted; a generator's
// arrivals over its window (mean interarrival gap, Poisson or profile rate averaged over the day
// and week, listed times) times its mean burst, capped by its count; a trace's rows times its
// sample, capped by its limit. An upper estimate for traces (rows outside the horizon count).
std::string_view to_string(OperationType t);
std::string_view to_string(SchedulerKind k);
std::string_view to_string(TraceFormat f);
std::string_view to_string(ScalingModel m);
std::string_view to_string(ArrivalKind k);

}  // namespace t9k::scenarios
