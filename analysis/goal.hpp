// Goal seeking (`t9ksim size`, docs/reports.md "Goal seeking"): targets on metrics, checked on a
// point's replications with the confidence that the true mean meets them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/aggregate.hpp"

namespace t9k::analysis {

enum class TargetOp { Less, LessEqual, Greater, GreaterEqual };

// "[GROUP=VALUE] METRIC OP THRESHOLD [in P% of runs]": `queue=production wait_p90 < 1h`,
// `utilisation_allocated > 0.7`, `kind=DeepSpeedJob jobs_never_started <= 0`. METRIC is a
// summary.json metric name; `_s` may be left out of time metrics and `utilisation` is accepted
// for `utilization`. THRESHOLD is a number, a percentage (`70%`) or, for time metrics, a duration.
// Without `in P% of runs` the mean over replications must meet the bound (the mean form); with
// it, at least P% of the replications must each meet it (the SLO form: "p90 under 1 h in 90 % of
// weeks"; `of replications` is accepted too).
struct Target {
  std::string text;    // as given
  std::string metric;  // the full metric name, e.g. "queue/production/wait_p90_s"
  TargetOp op = TargetOp::Less;
  double threshold = 0;
  std::optional<double> runs_share;  // the SLO form's P, in (0, 1]
};
std::optional<Target> parse_target(std::string_view text, std::string& error);
// "[GROUP=VALUE] METRIC" alone (`sweep --minimise`): its full summary.json name, spelled and
// checked as a target's metric is.
std::optional<std::string> parse_metric(std::string_view text, std::string& error);
// Targets a command stored (summary.json "targets"), parsed again; throws std::runtime_error
// naming the first that does not parse.
std::vector<Target> parse_stored_targets(const std::vector<std::string>& texts);
std::string_view to_string(TargetOp op);
// A pooled percentile (analysis/pooled.hpp): checked on its one value, without an interval.
bool is_pooled(const std::string& metric);
// Whether one value meets the target's bound.
bool meets_bound(const Target& t, double value);

struct TargetCheck {
  bool present = false;  // the runs have the metric
  bool met = false;      // the mean (the SLO form: the share of runs meeting the bound) meets it
  double mean = 0;
  double half_width = 0;  // NaN without an interval
  std::size_t n = 0;
  // The mean form: the one-sided Student-t probability that the true mean meets the target (1 or
  // 0 when the sample has no spread or n < 2). The SLO form: 1 minus the p-value of the exact
  // binomial test that the true share of runs meeting the bound is below P.
  double confidence = 0;
  std::size_t runs_meeting = 0;  // the SLO form: replications whose value meets the bound
  double share_lower = 0;        // the SLO form: the share's one-sided 95 % lower bound
};
TargetCheck check_target(const Target& t, const ReplicationSummary& s);
// One target's check as a sentence saying which form it is checked in: "queue/production/
// wait_p90_s < 1 h in 4 of 5 runs (80 %, at least 34 % with 95 % confidence); target: ...".
std::string describe_check(const Target& t, const TargetCheck& c);

// What limited a queue-or-cluster target at a point, from what its runs saw: the queue's quota
// (share used >= 90 %), the cluster's capacity (>= 90 % allocated), maxDuration (GPU-hours lost to
// it), or none of these. One sentence.
std::string binding_constraint(const Target& t, const ReplicationSummary& s);

}  // namespace t9k::analysis
