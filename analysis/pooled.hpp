// Percentiles pooled over every replication's jobs (docs/outputs.md "Pooled percentiles"): the
// p90 wait of all the jobs of all the weeks simulated, beside the mean of each week's p90. A
// planner's "p90 wait over the quarter" is the pooled one; a bad week weighs in it by its jobs.
// Read from each run's jobs.csv, streamed (a year's jobs.csv is never held whole).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/aggregate.hpp"

namespace t9k::analysis {

// The metrics pooled: for the cluster "pooled_wait_p50_s" ... and per queue and kind
// ("queue/production/pooled_wait_p90_s"), defined as the per-run ones are (a job that never
// started waits until it ended or the horizon; rejected jobs have no wait; JCTs of jobs that
// ended, not rejected).
inline constexpr const char* kPooledMetrics[] = {"pooled_wait_p50_s", "pooled_wait_p90_s",
                                                 "pooled_wait_p99_s", "pooled_jct_p50_s",
                                                 "pooled_jct_p90_s"};

// Fills s.pooled and s.pooled_jobs from the runs' jobs.csv (each run's dir); runs without one
// (summaries copied without their tables) leave it empty. Throws std::runtime_error naming a
// jobs.csv that does not parse.
void add_pooled_percentiles(ReplicationSummary& s);

}  // namespace t9k::analysis
