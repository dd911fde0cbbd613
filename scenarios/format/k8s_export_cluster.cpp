// kubectl exports (docs/traces.md "k8s-export"): the List's items, and its Nodes and Queues as
// a cluster ("Cluster from an export").
#include "scenarios/format/detail/trace_readers.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace t9k::scenarios {

namespace m = t9k::model;

namespace detail {

// The objects of a `kubectl get -o yaml` file: a List's items (several Lists or plain objects,
// one per document, work too), each with its path ("items[3]", "[1].items[0]").
bool export_items(const std::string& file, RowErrors& errors, std::vector<Diagnostic>& out,
                  std::vector<Val>& items, const std::string* given_text) {
  std::string read;
  if (!given_text && !read_text_file(file, read, out)) {
    errors.fatal(0, 0, "cannot read the file");
    return false;
  }
  const std::string& text = given_text ? *given_text : read;
  std::vector<Diagnostic> diags;
  const auto docs = parse_yaml(text, file, diags);
  if (!docs) {
    for (auto& x : diags) out.push_back(std::move(x));
    errors.fatal(0, 0, "the file is not YAML (reported above)");
    return false;
  }
  int index = -1;
  for (const auto& doc : *docs) {
    ++index;
    if (!doc.node.IsDefined() || doc.node.IsNull()) continue;
    const std::string base = docs->size() > 1 ? fmt::format("[{}]", index) : "";
    if (doc.node.IsMap() && doc.node["kind"].IsDefined() && doc.node["kind"].IsScalar() &&
        doc.node["kind"].Scalar() == "List") {
      const YAML::Node list = doc.node["items"];
      if (!list.IsDefined() || !list.IsSequence()) {
        errors.fatal(doc.line, 1,
                     "found a List without items; allowed: kind: List with items: [...]");
        continue;
      }
      for (std::size_t i = 0; i < list.size(); ++i) {
        items.push_back(Val{list[i], list[i].Mark(),
                            fmt::format("{}items[{}]", base.empty() ? "" : base + ".", i)});
      }
    } else {
      items.push_back(Val{doc.node, doc.node.Mark(), base});
    }
  }
  return true;
}

YAML::Node map_at(const YAML::Node& n, const char* key) {
  return n.IsDefined() && n.IsMap() ? n[key] : YAML::Node();
}

std::string kind_of(const YAML::Node& item) {
  const YAML::Node k = map_at(item, "kind");
  return k.IsDefined() && k.IsScalar() ? k.Scalar() : std::string();
}

// An exported object as a manifest: the status and the server's metadata fields dropped.
YAML::Node without_server_fields(const YAML::Node& item) {
  YAML::Node copy = YAML::Clone(item);
  copy.remove("status");
  if (copy["metadata"].IsDefined() && copy["metadata"].IsMap()) {
    for (const char* k : {"creationTimestamp", "uid", "resourceVersion", "generation",
                          "managedFields", "selfLink"}) {
      copy["metadata"].remove(k);
    }
  }
  return copy;
}

// The first error of a decode, "path: message".
std::string first_error(const std::vector<Diagnostic>& diags, std::string fallback) {
  for (const auto& x : diags) {
    if (x.severity == Severity::Error) return (x.path.empty() ? "" : x.path + ": ") + x.message;
  }
  return fallback;
}

namespace {

// Resource names a node reports that no pod of a simulation asks for: Kubernetes' own counts
// and storage (docs/traces.md "Cluster from an export").
bool node_only_resource(std::string_view name) {
  return name == "pods" || name == "ephemeral-storage" || name.starts_with("hugepages-") ||
         name.starts_with("attachable-volumes-");
}

}  // namespace

namespace {

// What building a cluster from an export keeps between its items: the pools by node shape, the
// names seen, and what the notes will say.
class ExportClusterReader {
 public:
  ExportClusterReader(const std::string& file, RowErrors& errors, std::vector<NodePool>& pools,
                      std::vector<m::Queue>& queues)
      : file_(file), errors_(errors), pools_(pools), queues_(queues) {}

  void item(const Val& item) {
    const std::string kind = kind_of(item.node);
    if (kind == "Queue") queue(item);
    if (kind == "Node") node(item);
  }

  // What the cluster assumes, for the loader to print.
  void notes(std::vector<LoadNote>& notes) const;

 private:
  void queue(const Val& item);
  void node(const Val& item);
  // The node's allocatable resources (capacity without them) as a pool's shape; nullopt after
  // reporting the node bad.
  std::optional<NodePool> resources(Report& r, std::vector<Diagnostic>& diags, const Val& item,
                                    const YAML::Node& status, const std::string& prefix);
  // The labels a pool carries (the GPU model apart); the world sets hostname and topology.
  static void labels(Report& r, const YAML::Node& meta, const std::string& prefix, NodePool& shape);
  // Taints and readiness are noted, not simulated.
  void conditions(const std::string& name, const YAML::Node& spec, const YAML::Node& status);
  // The pool of the node's shape, made on the first node of that shape.
  NodePool& pool_of(NodePool shape);

  const std::string& file_;
  RowErrors& errors_;
  std::vector<NodePool>& pools_;
  std::vector<m::Queue>& queues_;
  std::map<std::string, std::size_t> pool_of_shape_;
  std::set<std::string> node_names_, pool_names_, queue_names_;
  std::vector<std::string> tainted_, not_ready_, cordoned_;
  std::set<std::string> dropped_;
};

void ExportClusterReader::queue(const Val& item) {
  const int line = item.mark.line + 1, column = item.mark.column + 1;
  const std::string prefix = item.path.empty() ? "" : item.path + ".";
  std::vector<Diagnostic> diags;
  Report r(file_, diags, 0);
  std::optional<Object> obj;
  try {
    obj = decode_object(r, Val{without_server_fields(item.node), item.mark, item.path});
  } catch (const BudgetExceeded&) {
    obj.reset();
  }
  if (!obj || has_errors(diags) || !std::holds_alternative<m::Queue>(*obj)) {
    errors_.bad(line, column, item.path,
                "found an invalid Queue: " + first_error(diags, "not a Queue"));
    return;
  }
  m::Queue q = std::get<m::Queue>(*obj);
  if (!queue_names_.insert(q.metadata.name.str()).second) {
    errors_.bad(
        line, column, prefix + "metadata.name",
        fmt::format("found queue \"{}\" twice; allowed: one Queue per name", q.metadata.name));
    return;
  }
  queues_.push_back(std::move(q));
}

void ExportClusterReader::node(const Val& item) {
  const int line = item.mark.line + 1, column = item.mark.column + 1;
  const std::string prefix = item.path.empty() ? "" : item.path + ".";
  std::vector<Diagnostic> diags;
  Report r(file_, diags, 0);
  const YAML::Node meta = map_at(item.node, "metadata");
  const YAML::Node spec = map_at(item.node, "spec");
  const YAML::Node status = map_at(item.node, "status");
  const auto name = read_string(
      r, Val{map_at(meta, "name"), map_at(meta, "name").Mark(), prefix + "metadata.name"});
  if (!name || !is_dns1123_subdomain(*name)) {
    errors_.bad(line, column, prefix + "metadata.name",
                name ? fmt::format("found \"{}\"; allowed: a node name (DNS-1123 subdomain)", *name)
                     : first_error(diags, "missing metadata.name; allowed: the node's name"));
    return;
  }
  if (!node_names_.insert(*name).second) {
    errors_.bad(line, column, prefix + "metadata.name",
                fmt::format("found node \"{}\" twice; allowed: one Node per name", *name));
    return;
  }
  auto shape = resources(r, diags, item, status, prefix);
  if (!shape) return;
  labels(r, meta, prefix, *shape);
  if (has_errors(diags)) {
    errors_.bad(line, column, item.path, "found an invalid Node: " + first_error(diags, ""));
    return;
  }
  const YAML::Node unsched = map_at(spec, "unschedulable");
  const bool is_cordoned = unsched.IsDefined() && unsched.IsScalar() && unsched.Scalar() == "true";
  conditions(*name, spec, status);
  NodePool& p = pool_of(std::move(*shape));
  p.node_names.push_back(*name);
  ++p.count;
  if (is_cordoned) {
    p.cordoned.push_back(*name);
    cordoned_.push_back(*name);
  }
}

std::optional<NodePool> ExportClusterReader::resources(Report& r, std::vector<Diagnostic>& diags,
                                                       const Val& item, const YAML::Node& status,
                                                       const std::string& prefix) {
  const int line = item.mark.line + 1, column = item.mark.column + 1;
  // What pods can get: allocatable (capacity less what the system reserves), else capacity.
  const bool has_alloc = map_at(status, "allocatable").IsDefined();
  const char* res_key = has_alloc ? "allocatable" : "capacity";
  const Val res{map_at(status, res_key), map_at(status, res_key).Mark(),
                prefix + "status." + res_key};
  NodePool shape;
  bool bad = false;
  if (!res.node.IsDefined() || !res.node.IsMap()) {
    errors_.bad(line, column, prefix + "status.allocatable",
                "missing status.allocatable and status.capacity; allowed: a node as the API "
                "server returns it");
    return std::nullopt;
  }
  for (const auto& [key, v] : FreeMap(r, res).entries()) {
    if (node_only_resource(key)) {
      dropped_.insert(key);
      continue;
    }
    const auto q = read_quantity(r, v);
    if (!q) {
      bad = true;
      break;
    }
    if (key == m::kResourceCpu) {
      shape.cpu = *q;
    } else if (key == m::kResourceMemory) {
      shape.memory = *q;
    } else if (key == m::kResourceGpu) {
      if (q->milli() % 1000 != 0 || q->units_ceil() > m::kMaxGpusPerObject) {
        errors_.bad(v.mark.line + 1, v.mark.column + 1, v.path,
                    fmt::format("found {}; allowed: a whole number of GPUs, at most {}",
                                describe(v.node), m::kMaxGpusPerObject));
        bad = true;
        break;
      }
      shape.gpus_per_node = static_cast<std::int32_t>(q->units_ceil());
    } else if (!q->is_zero()) {
      shape.extra_resources[key] = *q;
    }
  }
  if (bad) {
    // The quantity's own finding, where it is.
    const auto it = std::find_if(diags.begin(), diags.end(),
                                 [](const Diagnostic& x) { return x.severity == Severity::Error; });
    if (it != diags.end()) errors_.bad(it->line, it->column, it->path, it->message);
    return std::nullopt;
  }
  if (shape.cpu.milli() <= 0 || shape.memory.milli() <= 0) {
    errors_.bad(res.mark.line + 1, res.mark.column + 1, res.path,
                fmt::format("found no {}; allowed: a node with cpu and memory",
                            shape.cpu.milli() <= 0 ? "cpu" : "memory"));
    return std::nullopt;
  }
  return shape;
}

void ExportClusterReader::labels(Report& r, const YAML::Node& meta, const std::string& prefix,
                                 NodePool& shape) {
  const Val labels{map_at(meta, "labels"), map_at(meta, "labels").Mark(),
                   prefix + "metadata.labels"};
  if (!labels.present()) return;
  for (const auto& [key, v] : FreeMap(r, labels).entries()) {
    // The world sets the hostname and topology labels of every node itself.
    if (key == m::kLabelHostname || key == m::kLabelRack || key == m::kLabelSwitch) continue;
    if (key == m::kLabelGpuModel) {
      shape.gpu_model = v.node.Scalar();
    } else {
      shape.labels[key] = v.node.Scalar();
    }
  }
}

void ExportClusterReader::conditions(const std::string& name, const YAML::Node& spec,
                                     const YAML::Node& status) {
  const YAML::Node taints = map_at(spec, "taints");
  if (taints.IsDefined() && taints.IsSequence()) {
    for (const auto& t : taints) {
      const YAML::Node effect = map_at(t, "effect");
      if (effect.IsDefined() && effect.IsScalar() &&
          (effect.Scalar() == "NoSchedule" || effect.Scalar() == "NoExecute")) {
        tainted_.push_back(name);
        break;
      }
    }
  }
  const YAML::Node conds = map_at(status, "conditions");
  if (conds.IsDefined() && conds.IsSequence()) {
    for (const auto& c : conds) {
      const YAML::Node t = map_at(c, "type"), st = map_at(c, "status");
      if (t.IsDefined() && t.IsScalar() && t.Scalar() == "Ready" &&
          !(st.IsDefined() && st.IsScalar() && st.Scalar() == "True")) {
        not_ready_.push_back(name);
      }
    }
  }
}

NodePool& ExportClusterReader::pool_of(NodePool shape) {
  // One pool per shape; the key holds everything the pool carries.
  std::string key = fmt::format("{}|{}|{}|{}", shape.cpu.milli(), shape.memory.milli(),
                                shape.gpus_per_node, shape.gpu_model);
  for (const auto& [k, q] : shape.extra_resources) key += fmt::format("|r:{}={}", k, q.milli());
  for (const auto& [k, v] : shape.labels) key += fmt::format("|l:{}={}", k, v);
  auto [it, fresh] = pool_of_shape_.emplace(key, pools_.size());
  if (fresh) {
    // The GPU model as a DNS-1123 label ("NVIDIA-A100-SXM4-80GB" -> "nvidia-a100-sxm4-80gb").
    std::string base;
    for (char ch : shape.gpu_model.substr(0, 56)) {
      const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      base += (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') ? l : '-';
    }
    while (!base.empty() && base.front() == '-') base.erase(0, 1);
    while (!base.empty() && base.back() == '-') base.pop_back();
    if (base.empty()) base = shape.gpus_per_node > 0 ? "gpu" : "cpu";
    std::string pool_name = base;
    for (int n = 2; !pool_names_.insert(pool_name).second; ++n)
      pool_name = fmt::format("{}-{}", base, n);
    shape.name = pool_name;
    pools_.push_back(std::move(shape));
  }
  return pools_[it->second];
}

void ExportClusterReader::notes(std::vector<LoadNote>& notes) const {
  const auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < 5; ++i) s += (i ? ", " : "") + names[i];
    if (names.size() > 5) s += fmt::format(", and {} more", names.size() - 5);
    return s;
  };
  if (!pools_.empty()) {
    std::string what;
    for (const auto& p : pools_) {
      what += fmt::format("{}{} ({} node{}{})", what.empty() ? "" : ", ", p.name, p.count,
                          p.count == 1 ? "" : "s",
                          p.gpus_per_node > 0 ? fmt::format(" x {} GPUs", p.gpus_per_node) : "");
    }
    std::string skipped;
    for (const auto& d : dropped_) skipped += (skipped.empty() ? "" : ", ") + d;
    notes.push_back(
        {Severity::Note,
         fmt::format("cluster from the export: {} node{} in {} pool{}: {}; allocatable resources{}",
                     node_names_.size(), node_names_.size() == 1 ? "" : "s", pools_.size(),
                     pools_.size() == 1 ? "" : "s", what,
                     skipped.empty() ? "" : " (not simulated: " + skipped + ")")});
  }
  if (!cordoned_.empty()) {
    notes.push_back(
        {Severity::Note,
         fmt::format("{} node{} cordoned at the export (spec.unschedulable) start cordoned: {}",
                     cordoned_.size(), cordoned_.size() == 1 ? "" : "s", list(cordoned_))});
  }
  if (!not_ready_.empty()) {
    notes.push_back(
        {Severity::Note,
         fmt::format("{} node{} not Ready at the export start Ready (the fault model "
                     "decides their future): {}",
                     not_ready_.size(), not_ready_.size() == 1 ? "" : "s", list(not_ready_))});
  }
  if (!tainted_.empty()) {
    // Not simulated: a warning, the placement may differ from the cluster's.
    notes.push_back(
        {Severity::Warning,
         fmt::format("{} node{} with NoSchedule or NoExecute taints: taints are not "
                     "simulated, any pod may be placed there: {}",
                     tainted_.size(), tainted_.size() == 1 ? "" : "s", list(tainted_))});
  }
}

}  // namespace

// Nodes of an export as node pools, Queues as queues (docs/traces.md "Cluster from an export").
// Nodes of one shape (allocatable resources, labels, GPU model) share a pool, which keeps their
// names in export order; pools are named after the GPU model.
void read_export_cluster(const std::string& file, const std::vector<Val>& items, RowErrors& errors,
                         std::vector<NodePool>& pools, std::vector<m::Queue>& queues,
                         std::vector<LoadNote>& notes) {
  ExportClusterReader reader(file, errors, pools, queues);
  for (const auto& item : items) reader.item(item);
  reader.notes(notes);
}

}  // namespace detail

using namespace detail;

namespace {

std::optional<ExportCluster> export_cluster(const std::string& path, const std::string* text,
                                            std::vector<Diagnostic>& out) {
  RowErrors errors(path, false, out);
  std::vector<Val> items;
  ExportCluster c;
  if (export_items(path, errors, out, items, text))
    read_export_cluster(path, items, errors, c.pools, c.queues, c.notes);
  // No errors.finish(): its closing line speaks of a replay; each bad Node or Queue is reported.
  if (errors.failed() || has_errors(out)) return std::nullopt;
  return c;
}

}  // namespace

std::optional<ExportCluster> load_export_cluster(const std::string& path,
                                                 std::vector<Diagnostic>& out) {
  return export_cluster(path, nullptr, out);
}

std::optional<ExportCluster> parse_export_cluster(const std::string& text, const std::string& file,
                                                  std::vector<Diagnostic>& out) {
  return export_cluster(file, &text, out);
}

}  // namespace t9k::scenarios
