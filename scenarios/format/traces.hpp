// Real cluster traces (docs/traces.md): Philly, Alibaba openb, a site's CSV accounting export
// and `kubectl get -o yaml` exports of T9k jobs. Loading reads the file once, streaming, into
// compact records sorted by submit time (the public traces are not sorted), checks every row and
// reports bad ones with file, line and column. Records become jobs only when a replay pulls them
// (workload/trace_cursor.hpp), so a long trace never exists as 80,000 job objects at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/jobs.hpp"
#include "model/scheduling.hpp"
#include "scenarios/format/diagnostics.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::scenarios {

// Annotations every replayed job carries: the identity the trace recorded (id column, name, or
// the row's line when the trace has no id) and where the row is.
inline constexpr const char* kAnnotationTraceId = "t9ksim.io/trace-id";
inline constexpr const char* kAnnotationTraceSource = "t9ksim.io/trace-source";
// Node label on pools of a Philly cluster with one pool per virtual cluster.
inline constexpr const char* kLabelVirtualCluster = "t9ksim.io/virtual-cluster";
// Prefix of node labels that say "this pool's GPU model is one of an openb gpu_spec's models"
// (a nodeSelector cannot express a set of allowed values).
inline constexpr const char* kLabelGpuSpecPrefix = "gpu-spec.t9ksim.io/";

// One job of a trace, compact; times in microseconds of the trace's own clock.
struct TraceRecord {
  std::int64_t submit_us = 0;
  std::int64_t duration_us = 0;
  std::int64_t start_us = -1;   // k8s-export: the start its run time counts from (end = start +
                                // duration); -1 other formats
  std::int32_t line = 0;        // 1-based line (k8s-export: of the item)
  std::int32_t gpus = 0;        // whole GPUs requested in total
  std::int64_t cpu_milli = 0;   // per pod; 0 = no request
  std::int64_t memory_mib = 0;  // per pod; 0 = no request
  std::int32_t group = -1;      // TraceData::groups: VC, qos class or queue column; -1 none
  std::int32_t priority = -1;   // csv priority column; -1 none
  std::int32_t kind = -1;       // model::JobKind from a csv kind column; -1: the entry's kind
  std::int32_t gpu_spec = -1;   // TraceData::gpu_specs; -1 no constraint
  std::int32_t name = -1;       // TraceData::names (sanitised recorded identity); -1: from line
  std::int32_t object = -1;     // k8s-export: TraceData::objects
  bool failed = false;          // openb pod_phase Failed: replayed with exit code 1
  bool start_exact = false;  // k8s-export: start_us as the cluster recorded it (not approximated)
  std::int16_t gpu_milli =
      0;  // openb with gpuMilli: shared: the pod's share of its one GPU (1..999)
};

// The mapping options of an entry, checked at load time (docs/traces.md has each one).
struct TraceMapping {
  model::JobKind kind = model::JobKind::PyTorchTrainingJob;  // philly, csv default
  std::int32_t gpus_per_pod = 8;
  std::string image = "t9ksim/trace-replay";
  std::string name_prefix;       // default: the entry's name
  bool pools_per_group = false;  // philly pools: per-vc (true) or shared
  model::Quantity node_cpu = model::Quantity::from_units(64);
  model::Quantity node_memory = model::Quantity::parse("512Gi");
  std::int32_t gpus_per_node = 8;
  bool replay_unscheduled = false;  // openb pods the trace never scheduled
  bool keep_failures = true;        // openb Failed pods exit 1
  bool shared_gpus = false;  // openb gpuMilli: shared (t9ksim.io/gpu-milli) instead of round-up
  std::string vc_file;       // philly_vc.csv, resolved
  std::string node_file;     // openb node list, resolved
  // csv
  std::map<std::string, std::string> columns;  // role -> header name
  std::string time_format = "unix";            // unix | unix-ms | seconds | rfc3339 | datetime
  std::string duration_unit = "s";             // s | ms | us | m | h
};

// What reading an export assumed or chose (Severity::Note) or cannot honour in the simulation
// (Severity::Warning), said by the loader at the field that names the export.
struct LoadNote {
  Severity severity = Severity::Note;
  std::string message;
};

struct TraceData {
  std::string file;       // as resolved
  std::string file_name;  // base name, for annotations
  TraceFormat format = TraceFormat::Philly;
  TraceMapping mapping;
  std::vector<TraceRecord> records;  // valid rows, sorted by (submit, line)
  std::vector<std::string> groups;
  std::vector<std::string> gpu_specs;
  std::vector<model::Text> names;  // sanitised, unique within the entry (TraceRecord::name)
  // The ids as recorded (the trace-id annotation), by the index of `names`: every one while the
  // file is read; once load_trace has named the jobs, only those that sanitising changed, in
  // `renamed` (most traces' ids are names already, and a second copy of each was a third of a
  // loaded trace's memory; issue 49). raw_name(i) reads either.
  std::vector<std::string> raw_names;
  std::vector<std::pair<std::int32_t, std::string>> renamed;  // by index
  std::string_view raw_name(std::int32_t i) const;
  std::vector<model::Job> objects;  // k8s-export: spec as exported, status cleared
  std::vector<NodePool> pools;      // the trace's cluster (philly: VC sizes; openb: node list)
  std::map<std::string, std::int64_t> group_nodes;  // philly: VC -> nodes (philly_vc.csv)
  std::vector<model::Queue>
      queues;  // derived queues (empty when the entry names a queue); k8s-export: its Queues first
  std::vector<LoadNote>
      cluster_notes;  // k8s-export: what building its cluster assumes (printed when used)
  // k8s-export: the jobs not finished at the export, for spec.initialState (not replayed).
  struct Unfinished {
    model::Job job;     // spec as exported (when it decoded)
    std::string error;  // why it does not decode; empty: it does
    std::string path;   // items[i]
    std::int32_t line = 0;
    std::string phase;  // status.phase as exported ("" without one)
    std::int64_t created_us = 0;
    std::optional<std::int64_t> start_us;                     // when it started running, if it did
    std::string start_from;                                   // where start_us came from
    std::vector<std::pair<std::string, std::string>> placed;  // its live pods: (pod name, nodeName)
    bool running_without_pods = false;  // phase Running and no pod of it in the export
  };
  std::vector<Unfinished> unfinished;
  std::int64_t latest_us = 0;    // k8s-export: the latest time the export records
  std::int64_t bad_rows = 0;     // skipped with skipBadRows
  std::int64_t unscheduled = 0;  // openb pods never scheduled and not replayed
  std::int64_t origin_us() const { return records.empty() ? 0 : records.front().submit_us; }
};

// A point on a trace's clock, as `epoch` gives it: a number of seconds (Unix seconds for
// philly, csv and k8s-export; seconds since the trace's start for alibaba-openb), or a date
// "YYYY-MM-DD HH:MM:SS" (UTC) or RFC 3339. Microseconds on that clock, or nullopt.
std::optional<std::int64_t> parse_trace_time(std::string_view text);

// A Unix time in µs as RFC 3339 in UTC, whole seconds ("2024-05-02T09:00:00Z").
std::string format_trace_time(std::int64_t us);

// Loads an entry's trace (entry.path already resolved). Errors and warnings go to `out`; bad rows
// are errors unless `skip_bad_rows` (or entry.skip_bad_rows), then warnings plus a count.
// `where` is the entry's field path in the scenario, for option errors.
std::shared_ptr<const TraceData> load_trace(const TraceEntry& entry, bool skip_bad_rows,
                                            const std::string& scenario_file,
                                            const std::string& where, std::vector<Diagnostic>& out);

// The cluster of a `kubectl get ... -o yaml` export (docs/traces.md "Cluster from an export"):
// its Node objects as node pools that keep the nodes' names, and its Queue objects.
struct ExportCluster {
  std::vector<NodePool> pools;
  std::vector<model::Queue> queues;
  std::vector<LoadNote> notes;  // what it assumes, for the loader to print
};
// Reads only Nodes and Queues (jobs and pods are not looked at). Errors go to `out`.
std::optional<ExportCluster> load_export_cluster(const std::string& path,
                                                 std::vector<Diagnostic>& out);
// The same from the file's text (t9ksim validate).
std::optional<ExportCluster> parse_export_cluster(const std::string& text, const std::string& file,
                                                  std::vector<Diagnostic>& out);

// spec.initialState (docs/forecast.md): an export's unfinished jobs as the state at time zero.
struct InitialJob {
  model::Job job;    // as exported (name and namespace kept), status cleared
  std::string path;  // items[i] in the export
  std::int32_t line = 0;
  bool running = false;  // placed on nodes at the export (its live pods have nodeName)
  std::int64_t created_us = 0;
  std::int64_t elapsed_us = 0;  // running: time since it started, at the export's time
  std::string elapsed_from;     // where its start came from
  std::vector<std::pair<std::string, std::string>> pins;  // running: (pod name, node) as recorded
};
struct InitialStateData {
  std::string file;
  std::int64_t at_us = 0;        // time zero on the export's clock (Unix µs)
  std::vector<InitialJob> jobs;  // running, then waiting; each by creation time, then export order
  std::vector<std::int64_t> finished_run_us;  // run times of the export's finished jobs
  std::vector<LoadNote> notes;  // what starting from it assumes, for the loader to print
};
// Reads the export's unfinished jobs (docs/forecast.md). `at_us` unset: the latest time the export
// records. Errors go to `out`; nullptr when there are any.
std::shared_ptr<const InitialStateData> load_initial_state(const std::string& path,
                                                           std::optional<std::int64_t> at_us,
                                                           std::vector<Diagnostic>& out);

// An Alibaba openb qos class as a queue: its name, the jobs' priority, whether it is preemptible.
struct QosClass {
  std::string queue;
  std::int32_t priority;
  bool preemptible;
};
QosClass openb_qos_class(std::string_view qos);

// The queue a record of group `group` (TraceData::groups; -1 none) goes to when the entry names
// none: a Philly VC's, an openb qos class's, or a csv queue column's (docs/traces.md).
std::string group_queue(const TraceData& d, std::int32_t group);

// A deterministic DNS-1123 label for a recorded identity: lower case, other characters to '-',
// and when anything changed or it is longer than 63, a 6-hex-digit hash of the original appended.
std::string sanitize_job_name(std::string_view raw, std::string_view fallback_prefix);

}  // namespace t9k::scenarios
