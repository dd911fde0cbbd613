// spec.scheduler: the scheduler, its queues and options; a job's queue reference.
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <variant>

#include <fmt/format.h>

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kScheduler[] = {"name", "queues", "options"};
constexpr std::string_view kQueueEntry[] = {"manifest", "path", "quotaShare"};

}  // namespace

void ScenarioDecoder::scheduler(const Val& v, Scenario& sc) {
  MapReader s(r_, v, kScheduler);
  if (auto x = read_choice(r_, s.get("name"), kSchedulerNames)) {
    sc.scheduler.kind = *x == "t9k" ? SchedulerKind::T9k : SchedulerKind::Default;
  }
  sc.scheduler.options = options(r_, s.get("options"), &sc);
  const Val queues = s.get("queues");
  if (queues.present() && sc.scheduler.kind == SchedulerKind::Default) {
    r_.error(queues.mark, queues.path,
             "found queues with the default scheduler; allowed: queues only with name: t9k");
    return;
  }
  std::set<std::string> names;
  for (const Val& item : read_list(r_, queues)) {
    MapReader e(r_, item, kQueueEntry);
    if (!e.ok()) continue;
    std::vector<std::pair<std::string, std::pair<Val, double>>> shares;
    for (const auto& [res, val] : FreeMap(r_, e.get("quotaShare")).entries()) {
      if (auto x = read_double(r_, val, 1e-9, 1e3)) shares.push_back({res, {val, *x}});
    }
    for (auto& [obj, source] : sources(e, item)) {
      if (!std::holds_alternative<m::Queue>(obj)) {
        r_.error(item.path, fmt::format("found {} \"{}\"; allowed: Queue objects", kind_name(obj),
                                        metadata_of(obj).name));
        continue;
      }
      auto& q = std::get<m::Queue>(obj);
      if (!names.insert(q.metadata.name.str()).second) {
        r_.error(item.path, fmt::format("found queue \"{}\" again; allowed: queue names unique",
                                        q.metadata.name));
        continue;
      }
      if (!shares.empty())
        quota_shares_.push_back({q.metadata.name.str(), e.get("quotaShare"), shares});
      sc.scheduler.queues.push_back(std::move(q));
    }
  }
  queues_broken_ = r_.has_error_under(queues.path);
}

// quotaShare: a queue's quota as a share of the cluster's capacity at time zero (every node pool,
// fromExport and fromTrace ones included; addNodePool operations later are not), so that sweeping
// the cluster keeps the queues' shares (a linked parameter). Rounded down to the milli-unit.
void ScenarioDecoder::apply_quota_shares(Scenario& sc) {
  if (quota_shares_.empty()) return;
  // Milli-units in double: a large cluster's memory in milli-bytes does not fit 64 bits.
  std::map<std::string, double> total;
  for (const auto& p : sc.cluster.node_pools) {
    for (const auto& [name, q] : p.capacity())
      total[name] += static_cast<double>(q.milli()) * static_cast<double>(p.count);
  }
  for (const auto& s : quota_shares_) {
    auto it = std::find_if(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                           [&](const m::Queue& q) { return q.metadata.name == s.queue; });
    if (it == sc.scheduler.queues.end()) continue;
    for (const auto& [res, share] : s.shares) {
      const auto& [at, f] = share;
      const auto have = total.find(res);
      if (have == total.end() || have->second <= 0) {
        r_.error(at.mark, at.path,
                 fmt::format("found a share of {}, which the cluster's nodes do not have; "
                             "allowed: a resource of the node pools",
                             res));
        continue;
      }
      if (it->spec.quota && it->spec.quota->count(res)) {
        r_.error(at.mark, at.path,
                 fmt::format("found both quota.requests[{}] in the manifest and a quotaShare of "
                             "it; allowed: one of them",
                             res));
        continue;
      }
      if (!it->spec.quota) it->spec.quota = m::ResourceList{};
      const double milli = std::floor(have->second * f);
      if (milli >= 9.2e18) {
        r_.error(at.mark, at.path,
                 fmt::format("found a share of {} beyond what a quantity holds; allowed: a "
                             "smaller share",
                             res));
        continue;
      }
      (*it->spec.quota)[res] = m::Quantity::from_milli(static_cast<std::int64_t>(milli));
    }
  }
}

void ScenarioDecoder::queue_ref(const std::string& path, std::string_view job,
                                const m::SchedulePolicy& s, const Scenario& sc) {
  if (sc.scheduler.kind == SchedulerKind::Default) {
    if (s.t9k_scheduler) {
      r_.error(path,
               fmt::format("job \"{}\" asks for the T9k scheduler (spec.scheduler.t9kScheduler); "
                           "allowed: no spec.scheduler, since spec.scheduler.name is default",
                           job));
    }
    return;
  }
  // Jobs without spec.scheduler run on the Kubernetes default scheduler, which the world
  // simulates beside the T9k scheduler (docs/scheduler.md).
  if (!s.t9k_scheduler) return;
  const auto& q = s.t9k_scheduler->queue;
  if (queues_broken_) return;
  // A queue named "default" always exists (spec §8.2, §8.3); the world creates it when the
  // scenario does not define it.
  const bool found =
      q == m::kDefaultQueue || std::any_of(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                                           [&](const m::Queue& x) { return x.metadata.name == q; });
  if (!found) {
    r_.error(
        path,
        fmt::format("job \"{}\" uses queue \"{}\"; allowed: a queue of spec.scheduler.queues ({})",
                    job, q, queue_names(sc)));
  }
}

}  // namespace t9k::scenarios::detail
