#include "policies/elastic.hpp"

#include <algorithm>
#include <map>

namespace t9k::policies {

namespace {

using Job = ElasticObservation::Job;

// GPU room left in each queue with a quota, in milli-GPU (others are absent: no limit).
std::map<std::string, std::int64_t> quota_room(const ElasticObservation& o) {
  std::map<std::string, std::int64_t> room;
  for (const auto& q : o.queues) {
    if (q.quota_gpu_milli)
      room[q.name] = std::max<std::int64_t>(0, *q.quota_gpu_milli - q.allocated_gpu_milli);
  }
  return room;
}

bool cooling(const Job& j, const ElasticObservation& o, const PolicyOptions& opt) {
  return opt.cooldown.count() > 0 && j.last_resize && o.now - *j.last_resize < opt.cooldown;
}

// Work of higher or equal queue priority than the job's waits (another job's pods).
bool pressure(const Job& j, const ElasticObservation& o) {
  return std::any_of(o.waiting.begin(), o.waiting.end(), [&](const auto& w) {
    return w.job != j.id && w.queue_priority >= j.queue_priority;
  });
}

std::int64_t per_pod(const Job& j) { return std::max<std::int64_t>(1, j.gpus_per_pod); }

// How many more pods the queue's quota allows, and taking them from the room.
std::int64_t quota_pods(std::map<std::string, std::int64_t>& room, const Job& j,
                        std::int64_t wanted) {
  const auto it = room.find(j.queue);
  if (it == room.end()) return wanted;
  return std::min(wanted, it->second / (per_pod(j) * model::kGpuMilliPerGpu));
}

void take_quota(std::map<std::string, std::int64_t>& room, const Job& j, std::int64_t pods) {
  const auto it = room.find(j.queue);
  if (it != room.end()) it->second -= pods * per_pod(j) * model::kGpuMilliPerGpu;
}

}  // namespace

ElasticDecisions GreedyPolicy::decide(const ElasticObservation& o) const {
  ElasticDecisions out;
  std::int64_t free_gpus = o.free_gpus;
  auto room = quota_room(o);
  for (const auto& j : o.jobs) {
    if (cooling(j, o, options_)) continue;
    const std::int32_t cur = j.expected;
    std::int32_t want = cur;
    if (pressure(j, o)) {
      want = j.min;
    } else if (free_gpus >= per_pod(j)) {
      std::int64_t grow = std::min<std::int64_t>(j.max - cur, free_gpus / per_pod(j));
      grow = std::max<std::int64_t>(0, quota_pods(room, j, grow));
      want = cur + static_cast<std::int32_t>(grow);
      free_gpus -= grow * per_pod(j);
      take_quota(room, j, grow);
    }
    if (want != cur) out.decisions.push_back({j.id, want});
  }
  return out;
}

ElasticDecisions CheckpointAlignedPolicy::decide(const ElasticObservation& o) const {
  const ElasticDecisions wanted = GreedyPolicy::decide(o);
  ElasticDecisions out;
  for (const auto& d : wanted.decisions) {
    const auto j =
        std::find_if(o.jobs.begin(), o.jobs.end(), [&](const Job& x) { return x.id == d.job; });
    // A job not training, or without checkpoints, loses nothing more by waiting: resize now.
    const bool aligned = !j->training || !j->checkpoint_interval || !j->since_checkpoint ||
                         *j->since_checkpoint <= options_.checkpoint_window;
    if (aligned) {
      out.decisions.push_back(d);
      continue;
    }
    // Ask to decide again when this job's next checkpoint completes.
    const SimDuration cycle = *j->checkpoint_interval + j->checkpoint_cost;
    const SimDuration left = cycle - (*j->since_checkpoint % cycle);
    const SimTime at = o.now + std::max(left, SimDuration{1});
    if (!out.next || at < *out.next) out.next = at;
  }
  return out;
}

ElasticDecisions GoodputPolicy::decide(const ElasticObservation& o) const {
  std::int64_t free_gpus = o.free_gpus;
  auto room = quota_room(o);
  std::vector<std::int32_t> want(o.jobs.size());
  std::vector<bool> growable(o.jobs.size(), false);
  for (std::size_t i = 0; i < o.jobs.size(); ++i) {
    const Job& j = o.jobs[i];
    want[i] = j.expected;
    if (cooling(j, o, options_)) continue;
    if (pressure(j, o)) {
      want[i] = j.min;
    } else {
      growable[i] = true;
    }
  }
  // One pod at a time to the best marginal gain per GPU; ties to the lower job id.
  for (;;) {
    std::size_t best = o.jobs.size();
    double best_gain = 0;
    for (std::size_t i = 0; i < o.jobs.size(); ++i) {
      const Job& j = o.jobs[i];
      if (!growable[i] || want[i] >= j.max || free_gpus < per_pod(j) || quota_pods(room, j, 1) < 1)
        continue;
      const auto n = static_cast<std::size_t>(std::max(1, want[i]));
      if (n >= j.speedup.size()) continue;
      const double gain =
          j.scaling_weight * (j.speedup[n] - j.speedup[n - 1]) / static_cast<double>(per_pod(j));
      if (gain > best_gain) {
        best_gain = gain;
        best = i;
      }
    }
    if (best == o.jobs.size()) break;
    ++want[best];
    free_gpus -= per_pod(o.jobs[best]);
    take_quota(room, o.jobs[best], 1);
  }
  ElasticDecisions out;
  for (std::size_t i = 0; i < o.jobs.size(); ++i) {
    if (want[i] != o.jobs[i].expected) out.decisions.push_back({o.jobs[i].id, want[i]});
  }
  return out;
}

std::unique_ptr<ElasticPolicy> make_elastic_policy(std::string_view name, PolicyOptions options) {
  if (name == "fixed") return std::make_unique<FixedPolicy>();
  if (name == "greedy") return std::make_unique<GreedyPolicy>(options);
  if (name == "checkpoint-aligned") return std::make_unique<CheckpointAlignedPolicy>(options);
  if (name == "goodput") return std::make_unique<GoodputPolicy>(options);
  return nullptr;
}

std::vector<std::string_view> elastic_policy_names() {
  return {"fixed", "greedy", "checkpoint-aligned", "goodput"};
}

}  // namespace t9k::policies
