#include "analysis/pooled.hpp"

#include <array>
#include <cmath>
#include <map>
#include <stdexcept>

#include "analysis/csv.hpp"
#include "analysis/statistics.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;

namespace {

struct Samples {
  std::vector<double> waits, jcts;
};

std::int64_t micros(double seconds) { return std::llround(seconds * 1e6); }

}  // namespace

void add_pooled_percentiles(ReplicationSummary& s) {
  s.pooled.clear();
  s.pooled_jobs = 0;
  // Pooled over every run or not at all (summaries copied without their tables).
  for (const auto& run : s.runs) {
    if (!fs::exists(run.dir / "jobs.csv")) return;
  }
  std::map<std::string, Samples> groups;  // "" is the cluster; "queue/a/", "kind/GenericJob/"
  for (const auto& run : s.runs) {
    const fs::path file = run.dir / "jobs.csv";
    const std::int64_t horizon = micros(run.horizon_s);
    for_each_csv_chunk(file, [&](const CsvTable& t) {
      for (std::size_t i = 0; i < t.rows.size(); ++i) {
        ++s.pooled_jobs;
        const std::string_view queue = t.field(i, "queue");
        std::array<Samples*, 3> in{&groups[""], nullptr,
                                   &groups["kind/" + std::string(t.field(i, "kind")) + "/"]};
        if (!queue.empty()) in[1] = &groups["queue/" + std::string(queue) + "/"];
        // As the recorder counts them (Recorder::Figures::add): the wait of a job that started;
        // of one that never did (not rejected), until its end or the horizon.
        std::optional<double> wait = t.number(i, "wait_s");
        if (!wait && t.field(i, "phase") != "Rejected") {
          const auto end = t.number(i, "end_s");
          const std::int64_t until = end ? micros(*end) : horizon;
          wait = static_cast<double>(until - micros(t.number(i, "submit_s").value_or(0))) / 1e6;
        }
        const std::optional<double> jct = t.number(i, "jct_s");
        for (Samples* g : in) {
          if (!g) continue;
          if (wait) g->waits.push_back(*wait);
          if (jct) g->jcts.push_back(*jct);
        }
      }
    });
  }
  static constexpr std::array kWaitPs{0.5, 0.9, 0.99};
  static constexpr std::array kJctPs{0.5, 0.9};
  for (auto& [prefix, g] : groups) {
    if (!g.waits.empty()) {
      const auto p = percentiles(std::move(g.waits), kWaitPs);
      s.pooled[prefix + "pooled_wait_p50_s"] = p[0];
      s.pooled[prefix + "pooled_wait_p90_s"] = p[1];
      s.pooled[prefix + "pooled_wait_p99_s"] = p[2];
    }
    if (!g.jcts.empty()) {
      const auto p = percentiles(std::move(g.jcts), kJctPs);
      s.pooled[prefix + "pooled_jct_p50_s"] = p[0];
      s.pooled[prefix + "pooled_jct_p90_s"] = p[1];
    }
  }
}

}  // namespace t9k::analysis
