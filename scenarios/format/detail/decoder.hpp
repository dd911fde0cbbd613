// Internal: the scenario decoder (docs/scenario-format.md). One file's decoding shares a report,
// the options it was loaded with and what earlier sections found (queues, pools, names of objects
// that failed to load); each section of spec is decoded by the member functions of its own file:
//   decode_scenario.cpp        the document and spec's scalars, then the sections in order
//   decode_cluster.cpp         spec.cluster
//   decode_scheduler.cpp       spec.scheduler
//   decode_controllers.cpp     spec.controllers, spec.kubelet, spec.plugins
//   decode_faults.cpp          spec.faults
//   decode_workload.cpp        spec.workload: jobs and traces
//   decode_behaviour.cpp       a job's behaviour
//   decode_generators.cpp      spec.workload.generators
//   decode_initial_state.cpp   spec.initialState
//   decode_operations.cpp      spec.operations
//   decode_expect.cpp          spec.expect
// Values every section reads (durations, distributions, times, option maps) are in values.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenarios/format/detail/decode.hpp"
#include "scenarios/format/detail/files.hpp"
#include "scenarios/format/detail/names.hpp"
#include "scenarios/format/detail/values.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::scenarios::detail {

namespace m = t9k::model;

// The fields of a plugin entry (spec.plugins.controllers[i] adds kind).
inline constexpr std::string_view kPlugin[] = {"command", "timeout", "name", "workingDir"};

// Queries on the scenario decoded so far (detail/decoder.cpp).
// A replica type an operation, a script or an expectation names, checked against its job: how many
// ranks it may have, or the error ("found \"x\", which is not a replica type of job J; allowed:
// ..."). Neither for a plugin's own kind, whose pods' replica types are its controller's
// (docs/plugins-go.md).
struct ReplicaTypeCheck {
  std::optional<std::int32_t> ranks;
  std::string error;
};
ReplicaTypeCheck check_replica_type(const m::Job& job, std::string_view job_name,
                                    std::string_view type);
// The queues a job may name, for messages ("default (implicit)" when not defined).
std::string queue_names(const Scenario& sc);
// The explicit jobs as operations and expectations name them (namespace/name outside the default
// namespace), for messages ("none defined" when there are none).
std::string job_names(const Scenario& sc);
// The explicit job a reference names ("name" in the default namespace, or "namespace/name"),
// or nullptr.
const JobSubmission* find_job(const Scenario& sc, const std::string& name);

class ScenarioDecoder {
 public:
  ScenarioDecoder(Report& r, std::vector<Diagnostic>& out, const LoadOptions& options)
      : r_(r), out_(out), options_(options) {}

  // The scenario, or nullopt when the document is not one; every finding is in the report.
  std::optional<Scenario> scenario(const Val& root);
  // Every file the scenario references, resolved (ScenarioResult::files).
  const std::set<std::string>& files() const { return files_; }

 private:
  // ---- every section (detail/decoder.cpp) ----
  // `manifest:` inline or `path:` to a file; returns the objects with their sources. With
  // `only`, just the object of a file with that name (explicit jobs from t9ksim generate).
  std::vector<std::pair<Object, std::string>> sources(const MapReader& mr, const Val& entry,
                                                      const std::string* only = nullptr);
  // Names of objects that failed to load, so references to them are not reported again.
  void remember_broken(const YAML::Node& doc);
  // A file the scenario names, relative to its folder: the resolved path, kept as an input of the
  // run; nullopt, with the error at the field, when file references are off or it is not a file.
  std::optional<std::string> input_file(const Val& v, const std::string& rel,
                                        std::string_view allowed);

  // ---- the document (decode_scenario.cpp) ----
  // Jobs that ask for GPUs on a cluster that never has any wait for ever: a warning, since a
  // CPU-only study is legitimate but this combination is almost always a slip.
  void warn_gpu_jobs_without_gpus(MapReader& spec, const Scenario& sc);
  void warn_jobs_no_node_holds(MapReader& spec, const Scenario& sc);

  // ---- spec.cluster (decode_cluster.cpp) ----
  void cluster(const Val& v, Scenario& sc);
  std::optional<NodePool> node_pool(const Val& v);
  // spec.cluster.accelerators: extended resources counted as GPUs (docs/scenario-format.md).
  void accelerators(const Val& v, Scenario& sc);
  void from_export(const Val& v, const std::string& rel, Scenario& sc);
  // The export's Queues join the scheduler's, which win on a name both have.
  void add_export_queues(Scenario& sc);
  void demand_factor(const Val& v, Scenario& sc);
  void apply_quota_shares(Scenario& sc);
  // Node names are unique: an export's own names (fromExport, fromTrace) against each other and
  // against the "<pool>-<i>" of every other pool, including pools operations add later (the
  // world would otherwise stop mid-run on a node added twice).
  void check_node_names(const Scenario& sc);

  // ---- spec.scheduler (decode_scheduler.cpp) ----
  void scheduler(const Val& v, Scenario& sc);
  void queue_ref(const std::string& path, std::string_view job, const m::SchedulePolicy& s,
                 const Scenario& sc);

  // ---- spec.controllers, spec.kubelet, spec.plugins (decode_controllers.cpp) ----
  void controllers(const Val& v, Scenario& sc);
  void kubelet(const Val& v, Scenario& sc);
  // controllers.options: strings, except elasticPolicy, which may name a plugin.
  void controller_options(const Val& v, Scenario& sc);
  std::optional<PluginSpec> plugin(const Val& v, const std::string& default_name,
                                   std::span<const std::string_view> fields = kPlugin);
  void plugins(const Val& v, Scenario& sc);

  // ---- spec.faults (decode_faults.cpp) ----
  void faults(const Val& v, Scenario& sc);

  // ---- spec.workload (decode_workload.cpp) ----
  void workload(const Val& v, Scenario& sc);
  void jobs(const Val& v, Scenario& sc);
  std::optional<std::string> renamed_as(const Val& v, std::size_t objects);
  void trace(const Val& item, Scenario& sc, std::set<std::string>& names);
  void cluster_from_trace(Scenario& sc);

  // ---- behaviour (decode_behaviour.cpp) ----
  JobBehaviour behaviour(const Val& v);
  // Scripted runs name replica types (and ranks) of the job they belong to.
  void check_scripts(const JobBehaviour& b, const m::Job& job, const std::string& behaviour_path,
                     bool ranks);

  // ---- spec.workload.generators (decode_generators.cpp) ----
  // Exactly one of the process keys of `mr` (interarrival, rate, profile, times); `bursts` is
  // counted by the caller among `extra`.
  std::optional<ArrivalProcess> arrival_process(const MapReader& mr, const Val& owner, bool extra,
                                                std::string_view allowed);
  // One class: a template, its behaviour and what varies. `prefix` names its jobs.
  std::optional<JobClass> job_class(const MapReader& c, const Val& item, const Scenario& sc,
                                    bool legacy);
  void generator(const Val& item, Scenario& sc, std::set<std::string>& names,
                 std::map<std::string, std::string>& prefixes);

  // ---- spec.initialState (decode_initial_state.cpp) ----
  // spec.initialState (docs/forecast.md): the export's unfinished jobs at time zero.
  void initial_state(const Val& v, Scenario& sc);

  // ---- spec.operations (decode_operations.cpp) ----
  void operations(const Val& v, Scenario& sc);
  std::optional<Operation> operation(const Val& item, const Scenario& sc,
                                     std::map<std::string, std::int32_t>& pools);
  bool operation_fields(const MapReader& o, OperationType type, std::string_view action);
  void operation_pod(const MapReader& o, Operation& op, const Scenario& sc);
  void operation_queue_edit(const MapReader& o, const Val& item, Operation& op, const Scenario& sc);
  void operation_replicas(const MapReader& o, Operation& op, const Scenario& sc);
  void operation_add_pool(const MapReader& o, Operation& op,
                          std::map<std::string, std::int32_t>& pools);
  void operation_remove_pool(const MapReader& o, Operation& op,
                             std::map<std::string, std::int32_t>& pools);
  // The job an operation names, which becomes its target; nullptr when it is not a job of the
  // workload (reported, unless the job itself failed to load).
  const JobSubmission* operation_job(const Val& jv, Operation& op, const Scenario& sc);
  // The node an operation names (<pool>-<index> of a pool existing at that point), its target.
  void operation_node(const Val& nv, Operation& op,
                      const std::map<std::string, std::int32_t>& pools);
  // The queue an operation names (a queue of spec.scheduler.queues), its target.
  void operation_queue(const Val& qv, Operation& op, const Scenario& sc);
  void repair_after(const MapReader& o, Operation& op);

  // ---- spec.expect (decode_expect.cpp) ----
  void expect(const Val& v, Scenario& sc);

  Report& r_;
  std::vector<Diagnostic>& out_;
  const LoadOptions& options_;
  std::set<std::string> broken_;
  bool queues_broken_ = false;
  // spec.scheduler.queues[].quotaShare, applied once the cluster is whole (after fromTrace).
  struct QuotaShare {
    std::string queue;
    Val at;
    std::vector<std::pair<std::string, std::pair<Val, double>>> shares;  // resource -> share
  };
  std::vector<QuotaShare> quota_shares_;
  Val from_trace_;   // spec.cluster.fromTrace, for messages
  Val from_export_;  // spec.cluster.fromExport, for messages
  std::map<std::string, std::vector<std::string>>
      named_nodes_;  // pool -> its nodes' own names (operations)
  std::vector<std::string> accelerators_{m::kResourceGpu};  // spec.cluster.accelerators, for pools
  std::vector<m::Queue> export_queues_;
  // Manifest files by resolved path: their objects, or nullopt when the file had errors.
  std::map<std::string, std::optional<std::vector<std::pair<Object, std::string>>>> file_cache_;
  std::set<std::string> files_;  // every file referenced, resolved (ScenarioResult::files)
};

}  // namespace t9k::scenarios::detail
