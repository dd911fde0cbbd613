// spec.scheduler: the scheduler, its queues and options; a job's queue reference.
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>
#include <variant>

#include <fmt/format.h>

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kScheduler[] = {"name", "queues", "options"};
constexpr std::string_view kSource[] = {"manifest", "path"};

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
    MapReader e(r_, item, kSource);
    if (!e.ok()) continue;
    for (auto& [obj, source] : sources(e, item)) {
      if (!std::holds_alternative<m::Queue>(obj)) {
        r_.error(item.path, fmt::format("found {} \"{}\"; allowed: Queue objects", kind_name(obj),
                                        metadata_of(obj).name));
        continue;
      }
      auto& q = std::get<m::Queue>(obj);
      if (!names.insert(q.metadata.name).second) {
        r_.error(item.path, fmt::format("found queue \"{}\" again; allowed: queue names unique",
                                        q.metadata.name));
        continue;
      }
      sc.scheduler.queues.push_back(std::move(q));
    }
  }
  queues_broken_ = r_.has_error_under(queues.path);
}

void ScenarioDecoder::queue_ref(const std::string& path, const std::string& job,
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
