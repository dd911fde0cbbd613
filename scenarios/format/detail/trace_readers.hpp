// Internal: the trace formats' readers (docs/traces.md), one file each, called by load_trace
// (traces.cpp): trace_philly.cpp, trace_openb.cpp, trace_csv.cpp, and the kubectl export in
// k8s_export_cluster.cpp (its Nodes and Queues) and k8s_export_jobs.cpp (its jobs).
#pragma once

#include <string>
#include <vector>

#include "scenarios/format/detail/decode.hpp"
#include "scenarios/format/detail/files.hpp"
#include "scenarios/format/detail/row_errors.hpp"
#include "scenarios/format/traces.hpp"

namespace t9k::scenarios::detail {

namespace m = t9k::model;

// ---- Philly (trace_philly.cpp) ----
// The job log: one record per row.
void read_philly(TraceData& d, RowErrors& errors);
// philly_vc.csv: the virtual clusters and their nodes, in the file's order.
void read_philly_vcs(TraceData& d, std::vector<Diagnostic>& out);
// The cluster of philly_vc.csv: one pool, or one per virtual cluster.
void philly_cluster(TraceData& d);

// ---- Alibaba openb (trace_openb.cpp) ----
// The pod list: one record per pod.
void read_openb(TraceData& d, RowErrors& errors);
// The openb node list: one pool per node shape.
void read_openb_nodes(TraceData& d, std::vector<Diagnostic>& out);
// Pools whose model is one of a multi-model gpu_spec carry that spec's label.
void label_gpu_specs(TraceData& d);

// ---- a site's CSV (trace_csv.cpp) ----
// One record per row, from the columns the entry maps.
void read_csv(TraceData& d, RowErrors& errors);
// A job kind by name; `ok` false when it names none.
m::JobKind parse_kind(std::string_view s, bool& ok);

// ---- kubectl exports (k8s_export_cluster.cpp, k8s_export_jobs.cpp) ----
// The objects of a `kubectl get -o yaml` file: a List's items (several Lists or plain objects,
// one per document, work too), each with its path ("items[3]", "[1].items[0]").
bool export_items(const std::string& file, RowErrors& errors, std::vector<Diagnostic>& out,
                  std::vector<Val>& items, const std::string* given_text = nullptr);
// The value at `key` of a mapping node, or an undefined node.
YAML::Node map_at(const YAML::Node& n, const char* key);
// An item's kind, "" when it has none.
std::string kind_of(const YAML::Node& item);
// An exported object as a manifest: the status and the server's metadata fields dropped.
YAML::Node without_server_fields(const YAML::Node& item);
// The first error of a decode, "path: message".
std::string first_error(const std::vector<Diagnostic>& diags, std::string fallback);
// Nodes of an export as node pools, Queues as queues (docs/traces.md "Cluster from an export").
// Nodes of one shape (allocatable resources, labels, GPU model) share a pool, which keeps their
// names in export order; pools are named after the GPU model.
void read_export_cluster(const std::string& file, const std::vector<Val>& items, RowErrors& errors,
                         std::vector<NodePool>& pools, std::vector<m::Queue>& queues,
                         std::vector<LoadNote>& notes);
// `kubectl get <kinds> -o yaml` (docs/traces.md "k8s-export"): each job of the List keeps its
// spec, is submitted at its creationTimestamp and runs for end - start as its status, its
// pods and its conditions record them; Nodes and Queues make the export's cluster.
void read_k8s_export(TraceData& d, RowErrors& errors, std::vector<Diagnostic>& out);

}  // namespace t9k::scenarios::detail
