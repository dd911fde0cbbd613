// Kubernetes metadata, label selectors and resource lists: the parts of core/v1 and meta/v1 the
// simulator needs. Ordered maps everywhere: iteration order must never depend on hashing.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/flat_map.hpp>

#include "kernel/optional_time.hpp"
#include "kernel/time.hpp"
#include "model/enums.hpp"
#include "model/label_key.hpp"
#include "model/quantity.hpp"
#include "model/shared.hpp"
#include "model/slim_vector.hpp"
#include "model/text.hpp"

namespace t9k::model {

using kernel::OptionalTime;
using kernel::SimDuration;
using kernel::SimTime;

// Labels are ordered by key like std::map, in one sorted array: a pod's half a dozen labels (§10)
// are built for every pod, and a map's node per label was a large share of a pod's allocations
// (docs/performance.md "Labels in a sorted array, condition texts that copy without
// allocating"); their keys are interned (model/label_key.hpp). Unlike std::map, inserting
// invalidates iterators and references. Values are Text: a label is 24 bytes, not 40, a value of up
// to 15 characters (a job's name, a queue, a role) needs no allocation, and a longer one is shared
// by the copies of its labels (a pod's are its template's and its job's).
// Kept in a SlimVector: most objects' labels and selectors are empty, and an empty one is a null
// pointer, 8 bytes of every job, PodGroup and pod, not 24 (model/slim_vector.hpp).
using Labels =
    boost::container::flat_map<LabelKey, Text, LabelKeyLess, SlimVector<std::pair<LabelKey, Text>>>;

// resource name ("cpu", "memory", "nvidia.com/gpu", "rdma/rdma_shared_device_a") -> quantity,
// ordered by name like std::map, in one sorted array: every pod's requests and every
// container's requests and limits are one, and a map's node per resource was 8 MB of the backlog
// case's peak (issue 49). Look-ups take any string type (std::less<>). Unlike std::map, inserting
// invalidates iterators and references.
using ResourceList = boost::container::flat_map<std::string, Quantity, std::less<>>;

inline constexpr const char* kResourceCpu = "cpu";
inline constexpr const char* kResourceMemory = "memory";
inline constexpr const char* kResourceGpu = "nvidia.com/gpu";
// A share of one GPU in thousandths (1..1000), for pods that share GPUs (Alibaba openb's
// gpu_milli): several such pods may sit on one GPU while their shares sum to at most 1000. The
// scheduler places them best-fit on one GPU of a node (docs/scheduler.md, "Shared GPUs").
inline constexpr const char* kResourceGpuMilli = "t9ksim.io/gpu-milli";
inline constexpr std::int64_t kGpuMilliPerGpu = 1000;
// The most GPUs one node, pod or trace row may name (2^20): large enough to model a whole
// cluster as one pooled node, as several peer simulators do (a 10,000-node, 80,000-GPU cluster
// fits); small enough that GPU counts in milli (2^20 * 1000 < 2^31) and the per-GPU slot tables
// of shared GPUs (8 bytes a GPU) stay safe.
inline constexpr std::int64_t kMaxGpusPerObject = std::int64_t{1} << 20;

// Sums b into a.
void add_resources(ResourceList& a, const ResourceList& b);
// a -= b, per resource (missing counts as zero); may go negative. In place: the store releases
// a pod's resources from its node's and queue's books without copying them.
void subtract_from(ResourceList& a, const ResourceList& b);
// a - b, per resource (missing counts as zero); may go negative.
ResourceList subtract_resources(const ResourceList& a, const ResourceList& b);
// True when every resource of `need` is <= the same resource of `have` (missing counts as zero).
bool fits(const ResourceList& need, const ResourceList& have);
// fits() of `used` restricted to the resources `limits` names (a queue's quota): what the limits
// do not name is unlimited. Without building the restricted list.
bool within_limits(const ResourceList& used, const ResourceList& limits);
// The quantity of one resource, zero when absent.
Quantity get_resource(const ResourceList& r, const std::string& name);

struct OwnerReference {
  // Every pod and PodGroup names its job's: Text, so the API version (29 characters, past
  // std::string's inline 15) and the kind are a view of a constant, not a copy (issue 49).
  Text api_version;
  Text kind;
  Text name;
  Text uid;
  bool controller = false;
  bool operator==(const OwnerReference&) const = default;
};

// An object's owner references, read as a vector and shared by copies until one is changed:
// a job's PodGroup and pods all name the job, so a reconcile makes the list once for them (8
// bytes each, no block of their own; issue 49).
class OwnerReferences {
 public:
  OwnerReferences() = default;
  OwnerReferences(std::initializer_list<OwnerReference> refs)
      : refs_(std::vector<OwnerReference>(refs)) {}

  bool empty() const { return refs_->empty(); }
  std::size_t size() const { return refs_->size(); }
  const OwnerReference& operator[](std::size_t i) const { return (*refs_)[i]; }
  auto begin() const { return refs_->begin(); }
  auto end() const { return refs_->end(); }
  void push_back(OwnerReference r) { refs_.edit().push_back(std::move(r)); }
  bool shares_with(const OwnerReferences& o) const { return refs_.shares_with(o.refs_); }
  bool operator==(const OwnerReferences&) const = default;

 private:
  Shared<std::vector<OwnerReference>> refs_;
};

struct ObjectMeta {
  Text name;        // a job's, its PodGroup's and pods' ("j000001-worker-0" fits in place)
  Text namespace_;  // "namespace" in manifests; empty means the scenario's default
  Labels labels;
  // Nearly always none, or a template's that every pod copies: shared, 8 bytes (issue 49).
  Shared<Labels> annotations;
  Text uid;
  OptionalTime creation_timestamp;
  // Not a Kubernetes field: the store's creation order, given out once and never reused (1, 2,
  // ...; 0 = not stored). It orders objects created at the same instant (§8.5 "earliest created
  // first"): a timestamp alone cannot, and ids recycled from finished objects must not.
  std::uint64_t creation_sequence = 0;
  OwnerReferences owner_references;
  bool operator==(const ObjectMeta&) const = default;
};

// An object's key, "<namespace>/<name>", or "<name>" without a namespace: the store's and the
// scheduler snapshot's indexes of jobs, pods and PodGroups. Built in one allocation (keys are
// built for every pod and group change).
std::string object_key(std::string_view namespace_, std::string_view name);
inline std::string object_key(const ObjectMeta& m) { return object_key(m.namespace_, m.name); }
// object_key(namespace_, name) == key, without building the key: pods are looked up by key on
// every binding.
bool is_key(std::string_view key, std::string_view namespace_, std::string_view name);
inline bool is_key_of(const ObjectMeta& m, std::string_view key) {
  return is_key(key, m.namespace_, m.name);
}

// `prefix` followed by `n` in decimal, as fmt::format("{}{}", prefix, n) writes it, without the
// formatting machinery: uids and sources are built for every job and pod.
std::string numbered(std::string_view prefix, std::int64_t n);

struct LabelSelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::In;
  std::vector<std::string> values;
  bool operator==(const LabelSelectorRequirement&) const = default;
};

// meta/v1 LabelSelector: matchLabels AND every matchExpression.
struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  bool matches(const Labels& labels) const;
  bool empty() const { return match_labels.empty() && match_expressions.empty(); }
  bool operator==(const LabelSelector&) const = default;
};

}  // namespace t9k::model
