#include "app/target_groups.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/sweep.hpp"
#include "model/enums.hpp"

namespace t9k::app {

std::string unknown_target_group(const analysis::Target& t, const scenarios::Scenario& sc) {
  const auto first = t.metric.find('/');
  if (first == std::string::npos) return {};
  const std::string group = t.metric.substr(0, first);
  const auto second = t.metric.find('/', first + 1);
  const std::string value = t.metric.substr(first + 1, second - first - 1);
  std::vector<std::string> names;
  if (group == analysis::kGroupQueue) {
    if (sc.scheduler.kind != scenarios::SchedulerKind::T9k)
      return "the scenario's scheduler is the default one, which has no queues";
    names.push_back(model::kDefaultQueue);  // always exists (spec §8.2)
    for (const auto& q : sc.scheduler.queues)
      if (q.metadata.name != model::kDefaultQueue) names.push_back(q.metadata.name.str());
  } else if (group == analysis::kGroupKind) {
    names = {"GenericJob", "PyTorchTrainingJob", "DeepSpeedJob"};
  } else {
    return {};
  }
  if (std::find(names.begin(), names.end(), value) != names.end()) return {};
  return fmt::format("the scenario has no {} \"{}\" ({}s: {})", group, value, group,
                     fmt::join(names, ", "));
}

std::optional<std::vector<analysis::Target>> parse_targets(std::string_view command,
                                                           const std::vector<std::string>& texts) {
  std::vector<analysis::Target> out;
  for (const auto& t : texts) {
    std::string error;
    auto parsed = analysis::parse_target(t, error);
    if (!parsed) {
      fmt::print(stderr, "t9ksim {}: --target '{}': {}\n", command, t, error);
      return std::nullopt;
    }
    out.push_back(std::move(*parsed));
  }
  return out;
}

bool targets_fit(std::string_view command, const std::vector<std::string>& texts,
                 const scenarios::Scenario& sc) {
  const auto targets = parse_targets(command, texts);
  if (!targets) return false;
  for (std::size_t k = 0; k < targets->size(); ++k) {
    if (const auto why = unknown_target_group((*targets)[k], sc); !why.empty()) {
      fmt::print(stderr, "t9ksim {}: --target '{}': {}\n", command, texts[k], why);
      return false;
    }
  }
  return true;
}

}  // namespace t9k::app
