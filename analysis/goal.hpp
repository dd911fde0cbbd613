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

// "[GROUP=VALUE] METRIC OP THRESHOLD": `queue=production wait_p90 < 1h`,
// `utilisation_allocated > 0.7`, `kind=DeepSpeedJob jobs_never_started <= 0`. METRIC is a
// summary.json metric name; `_s` may be left out of time metrics and `utilisation` is accepted
// for `utilization`. THRESHOLD is a number, a percentage (`70%`) or, for time metrics, a duration.
struct Target {
  std::string text;    // as given
  std::string metric;  // the full metric name, e.g. "queue/production/wait_p90_s"
  TargetOp op = TargetOp::Less;
  double threshold = 0;
};
std::optional<Target> parse_target(std::string_view text, std::string& error);
std::string_view to_string(TargetOp op);

struct TargetCheck {
  bool present = false;  // the runs have the metric
  bool met = false;      // the mean over replications meets the target
  double mean = 0;
  double half_width = 0;  // NaN without an interval
  std::size_t n = 0;
  // One-sided Student-t probability that the true mean meets the target (1 or 0 when the sample
  // has no spread or n < 2).
  double confidence = 0;
};
TargetCheck check_target(const Target& t, const ReplicationSummary& s);

// What limited a queue-or-cluster target at a point, from what its runs saw: the queue's quota
// (share used >= 90 %), the cluster's capacity (>= 90 % allocated), maxDuration (GPU-hours lost to
// it), or none of these. One sentence.
std::string binding_constraint(const Target& t, const ReplicationSummary& s);

}  // namespace t9k::analysis
