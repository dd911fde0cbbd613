#include <algorithm>
#include <cctype>
#include <charconv>
#include <mutex>
#include <set>

#include "model/change.hpp"
#include "model/cluster.hpp"
#include "model/jobs.hpp"
#include "model/meta.hpp"
#include "model/pod_template.hpp"

namespace t9k::model {

void add_resources(ResourceList& a, const ResourceList& b) {
  for (const auto& [name, q] : b) a[name] += q;
}

void subtract_from(ResourceList& a, const ResourceList& b) {
  for (const auto& [name, q] : b) a[name] -= q;
}

ResourceList subtract_resources(const ResourceList& a, const ResourceList& b) {
  ResourceList r = a;
  subtract_from(r, b);
  return r;
}

namespace {
// The one comparison of fits and within_limits: a zero amount needs nothing (even of a resource
// the other side lacks or has negative, as a book may after a release).
bool amount_fits(const Quantity& need, const Quantity& have) {
  return need.is_zero() || !(need > have);
}
}  // namespace

bool fits(const ResourceList& need, const ResourceList& have) {
  for (const auto& [name, q] : need) {
    if (!amount_fits(q, get_resource(have, name))) return false;
  }
  return true;
}

bool within_limits(const ResourceList& used, const ResourceList& limits) {
  for (const auto& [name, limit] : limits) {
    if (!amount_fits(get_resource(used, name), limit)) return false;
  }
  return true;
}

Quantity get_resource(const ResourceList& r, const std::string& name) {
  // A list holds a handful of names: a scan for an equal one (lengths first) beats a binary
  // search's three-way comparisons.
  for (const auto& [n, q] : r) {
    if (n == name) return q;
  }
  return Quantity{};
}

std::string object_key(std::string_view namespace_, std::string_view name) {
  if (namespace_.empty()) return std::string(name);
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).append(1, '/').append(name);
  return key;
}

bool is_key(std::string_view key, std::string_view namespace_, std::string_view name) {
  if (namespace_.empty()) return key == name;
  return key.size() == namespace_.size() + 1 + name.size() &&
         key.substr(0, namespace_.size()) == namespace_ && key[namespace_.size()] == '/' &&
         key.substr(namespace_.size() + 1) == name;
}

std::string numbered(std::string_view prefix, std::int64_t n) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  std::string out;
  out.reserve(prefix.size() + static_cast<std::size_t>(end - digits));
  out.append(prefix).append(digits, end);
  return out;
}

bool LabelSelector::matches(const Labels& labels) const {
  for (const auto& [k, v] : match_labels) {
    const auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& req : match_expressions) {
    const auto it = labels.find(req.key);
    const bool has = it != labels.end();
    const bool in =
        has && std::find(req.values.begin(), req.values.end(), it->second) != req.values.end();
    switch (req.op) {
      case SelectorOperator::In:
        if (!in) return false;
        break;
      case SelectorOperator::NotIn:
        if (in) return false;
        break;
      case SelectorOperator::Exists:
        if (!has) return false;
        break;
      case SelectorOperator::DoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

ResourceList effective_requests(const Container& c) {
  ResourceList r = c.resources.requests;
  for (const auto& [name, q] : c.resources.limits) r.emplace(name, q);  // request defaults to limit
  return r;
}

ResourceList pod_requests(const PodSpec& spec) {
  ResourceList sum;
  for (const auto& c : spec.containers) add_resources(sum, effective_requests(c));
  for (const auto& c : spec.init_containers) {
    for (const auto& [name, q] : effective_requests(c)) {
      auto& slot = sum[name];
      slot = std::max(slot, q);
    }
  }
  return sum;
}

JobKind kind_of(const Job& job) { return static_cast<JobKind>(job.index()); }

bool same_replica_type(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::string_view kind_name(const Job& job) {
  if (const auto* p = std::get_if<PluginJob>(&job)) return p->kind;
  return to_string(kind_of(job));
}

std::string_view interned_kind(std::string_view name) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> names;
  const std::lock_guard lock(mutex);
  auto it = names.find(name);
  if (it == names.end()) it = names.emplace(name).first;
  return *it;
}

std::string_view api_version_of(const Job& job) {
  if (const auto* p = std::get_if<PluginJob>(&job)) return p->api_version;
  return kBatchApiVersion;
}

const ObjectMeta& metadata_of(const Job& job) {
  return std::visit([](const auto& j) -> const ObjectMeta& { return j.metadata; }, job);
}
ObjectMeta& metadata_of(Job& job) {
  return std::visit([](auto& j) -> ObjectMeta& { return j.metadata; }, job);
}
const JobStatus& status_of(const Job& job) {
  return std::visit([](const auto& j) -> const JobStatus& { return j.status; }, job);
}
JobStatus& status_of(Job& job) {
  return std::visit([](auto& j) -> JobStatus& { return j.status; }, job);
}
const SchedulePolicy& scheduler_of(const Job& job) {
  return std::visit([](const auto& j) -> const SchedulePolicy& { return j.spec.scheduler; }, job);
}
const RunMode& run_mode_of(const Job& job) {
  return std::visit([](const auto& j) -> const RunMode& { return *j.spec.run_mode; }, job);
}

std::vector<std::string> default_debug_command(JobKind kind) {
  if (kind == JobKind::DeepSpeedJob) return {"/usr/sbin/sshd", "-D"};  // §5, §7.1
  return {"sleep", "inf"};                                             // API ReplicaDebugSet
}

std::string_view to_string(DeletionReason r) {
  static constexpr std::string_view kNames[] = {
      "Cleanup",    "Pause",       "ScaleDown",   "Deadline", "Restart",
      "Preemption", "MaxDuration", "NodeFailure", "Drain",    "User"};
  return kNames[static_cast<std::size_t>(r)];
}

}  // namespace t9k::model

namespace t9k::model {

std::string_view to_string(LossCause c) {
  static constexpr std::string_view kNames[] = {"fault", "software",    "preemption", "scale",
                                                "pause", "maxDuration", "other"};
  return kNames[static_cast<std::size_t>(c)];
}

std::string_view to_string(PendingCause c) {
  static constexpr std::string_view kNames[] = {"Quota",      "Capacity",   "Constraints",
                                                "Preempting", "QueueOrder", "GangMembers"};
  return kNames[static_cast<std::size_t>(c)];
}

}  // namespace t9k::model
