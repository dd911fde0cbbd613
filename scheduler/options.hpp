// SchedulerOptions: every policy choice of the scheduler, by name, as a scenario selects it.
// Plugin lists are ordered lists of registered names; validate() reports every problem at once
// with the field path and the allowed names, and Scheduler's constructor refuses invalid options.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace t9k::scheduler {

// §11 Q14: where queue quota acts.
enum class QuotaMode { GateAtScheduling, RejectAtAdmission };
// §11 Q18: denominator of the dominant resource share.
enum class DrfDenominator { Quota, ClusterCapacity };
// §11 Q11: what a PodGroup that cannot be placed does to the ones behind it in its queue.
enum class BackfillPolicy { SkipAndContinue, StrictFifo };

std::string_view to_string(QuotaMode v);       // "gate-at-scheduling" | "reject-at-admission"
std::string_view to_string(DrfDenominator v);  // "quota" | "cluster-capacity"
std::string_view to_string(BackfillPolicy v);  // "skip-and-continue" | "strict-fifo"
std::optional<QuotaMode> parse_quota_mode(std::string_view s);
std::optional<DrfDenominator> parse_drf_denominator(std::string_view s);
std::optional<BackfillPolicy> parse_backfill_policy(std::string_view s);

struct WeightedScore {
  std::string name;
  int weight = 1;
  bool operator==(const WeightedScore&) const = default;
};

// One problem of a SchedulerOptions: `option` names the setting as a scenario writes it under
// spec.scheduler.options (filters, maxFeasibleNodes...), so a loader can point at its line;
// `path` is the field within the options ("scheduler.filters[1]"); a problem of one entry of a
// list option also has that entry's index and, when it is a field of the entry, the field
// ("weight" of scores[1]), so that a loader can name them without reading `path`.
struct OptionsProblem {
  std::string option;
  std::string message;
  std::optional<std::size_t> entry;  // 0-based
  std::string entry_field;
  // "scheduler.<option>[<entry>].<entry_field>", the parts that are set.
  std::string path() const;
  std::string text() const { return path() + ": " + message; }
};

struct SchedulerOptions {
  // Queue sort: comparators applied in order to rank queues (§8.5); the queue name breaks ties.
  // Names: "queue-priority", "dominant-resource-share".
  std::vector<std::string> queue_sort{"queue-priority", "dominant-resource-share"};
  // Filters, all must pass. Names: "node-ready", "node-resources-fit", "node-selector",
  // "queue-node-selector". "node-resources-fit" is mandatory (nodes would be over-allocated).
  std::vector<std::string> filters{"node-ready", "node-resources-fit", "node-selector",
                                   "queue-node-selector"};
  // Scores, summed with weights (each plugin scores 0..1000). Names: "bin-pack", "spread",
  // "topology". The candidate walk follows the free-GPU index upwards unless the heaviest
  // plugin is "spread".
  std::vector<WeightedScore> scores{{"bin-pack", 1}, {"topology", 1}};
  // Permit for T9k PodGroups. Names: "gang" (all-or-nothing for minMember, §8.4). An empty list
  // places every pod individually (the what-if "no gang scheduling").
  std::vector<std::string> permit{"gang"};

  QuotaMode quota_mode = QuotaMode::GateAtScheduling;         // §11 Q14
  DrfDenominator drf_denominator = DrfDenominator::Quota;     // §11 Q18
  BackfillPolicy backfill = BackfillPolicy::SkipAndContinue;  // §11 Q11
  bool preemption = false;              // §8.6: a feature that must be enabled
  bool intra_queue_preemption = false;  // §11 Q9: off by default
  // Stop scoring after this many feasible nodes (kube-scheduler's percentageOfNodesToScore
  // idea); 0 scores every feasible node. The walk is in bin-pack order, so the first feasible
  // node is already the best bin-pack choice.
  int max_feasible_nodes = 64;

  // Empty when valid; otherwise one message per problem, e.g.
  // "scheduler.scores[1].name: unknown score plugin 'binpack' (allowed: bin-pack, spread,
  // topology)".
  std::vector<std::string> validate() const;
  std::vector<OptionsProblem> problems() const;  // the same, by option
  bool operator==(const SchedulerOptions&) const = default;
};

class OptionsError : public std::invalid_argument {
 public:
  explicit OptionsError(const std::vector<std::string>& problems);
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

// Registered names per stage, in the order documented above.
const std::vector<std::string_view>& queue_sort_stage_names();
const std::vector<std::string_view>& filter_stage_names();
const std::vector<std::string_view>& score_stage_names();
const std::vector<std::string_view>& permit_stage_names();

}  // namespace t9k::scheduler
