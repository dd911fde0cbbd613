#include "scheduler/options.hpp"

#include <algorithm>
#include <set>

namespace t9k::scheduler {

std::string_view to_string(QuotaMode v) {
  return v == QuotaMode::GateAtScheduling ? "gate-at-scheduling" : "reject-at-admission";
}
std::string_view to_string(DrfDenominator v) {
  return v == DrfDenominator::Quota ? "quota" : "cluster-capacity";
}
std::string_view to_string(BackfillPolicy v) {
  return v == BackfillPolicy::SkipAndContinue ? "skip-and-continue" : "strict-fifo";
}
std::optional<QuotaMode> parse_quota_mode(std::string_view s) {
  if (s == "gate-at-scheduling") return QuotaMode::GateAtScheduling;
  if (s == "reject-at-admission") return QuotaMode::RejectAtAdmission;
  return std::nullopt;
}
std::optional<DrfDenominator> parse_drf_denominator(std::string_view s) {
  if (s == "quota") return DrfDenominator::Quota;
  if (s == "cluster-capacity") return DrfDenominator::ClusterCapacity;
  return std::nullopt;
}
std::optional<BackfillPolicy> parse_backfill_policy(std::string_view s) {
  if (s == "skip-and-continue") return BackfillPolicy::SkipAndContinue;
  if (s == "strict-fifo") return BackfillPolicy::StrictFifo;
  return std::nullopt;
}

const std::vector<std::string_view>& queue_sort_stage_names() {
  static const std::vector<std::string_view> v{"queue-priority", "dominant-resource-share"};
  return v;
}
const std::vector<std::string_view>& filter_stage_names() {
  static const std::vector<std::string_view> v{"node-ready", "node-resources-fit", "node-selector",
                                               "queue-node-selector"};
  return v;
}
const std::vector<std::string_view>& score_stage_names() {
  static const std::vector<std::string_view> v{"bin-pack", "spread", "topology"};
  return v;
}
const std::vector<std::string_view>& permit_stage_names() {
  static const std::vector<std::string_view> v{"gang"};
  return v;
}

namespace {

std::string allowed(const std::vector<std::string_view>& names) {
  std::string s;
  for (const auto n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

void check_list(const std::string& field, const std::string& what,
                const std::vector<std::string>& list, const std::vector<std::string_view>& names,
                std::vector<OptionsProblem>& out) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (std::find(names.begin(), names.end(), list[i]) == names.end())
      out.push_back(
          {field,
           "unknown " + what + " plugin '" + list[i] + "' (allowed: " + allowed(names) + ")",
           i,
           {}});
    else if (!seen.insert(list[i]).second)
      out.push_back({field, what + " plugin '" + list[i] + "' listed twice", i, {}});
  }
}

std::string join_problems(const std::vector<std::string>& problems) {
  std::string s = "invalid scheduler options:";
  for (const auto& p : problems) s += "\n  " + p;
  return s;
}

}  // namespace

std::string OptionsProblem::path() const {
  std::string p = "scheduler." + option;
  if (entry) p += "[" + std::to_string(*entry) + "]";
  if (!entry_field.empty()) p += "." + entry_field;
  return p;
}

std::vector<OptionsProblem> SchedulerOptions::problems() const {
  std::vector<OptionsProblem> out;
  check_list("queueSort", "queue sort", queue_sort, queue_sort_stage_names(), out);
  check_list("filters", "filter", filters, filter_stage_names(), out);
  if (std::find(filters.begin(), filters.end(), "node-resources-fit") == filters.end())
    out.push_back({"filters",
                   "must include 'node-resources-fit' (without it nodes would be over-allocated)",
                   {},
                   {}});
  std::vector<std::string> score_names;
  for (const auto& s : scores) score_names.push_back(s.name);
  check_list("scores", "score", score_names, score_stage_names(), out);
  for (std::size_t i = 0; i < scores.size(); ++i)
    if (scores[i].weight < 1 || scores[i].weight > 100)
      out.push_back(
          {"scores", std::to_string(scores[i].weight) + " is outside [1, 100]", i, "weight"});
  check_list("permit", "permit", permit, permit_stage_names(), out);
  if (max_feasible_nodes < 0)
    out.push_back(
        {"maxFeasibleNodes",
         std::to_string(max_feasible_nodes) + " is negative (0 means score every feasible node)",
         {},
         {}});
  if (intra_queue_preemption && !preemption)
    out.push_back({"intraQueuePreemption", "requires scheduler.preemption: true", {}, {}});
  return out;
}

std::vector<std::string> SchedulerOptions::validate() const {
  std::vector<std::string> out;
  for (const auto& p : problems()) out.push_back(p.text());
  return out;
}

OptionsError::OptionsError(const std::vector<std::string>& problems)
    : std::invalid_argument(join_problems(problems)), problems_(problems) {}

}  // namespace t9k::scheduler
