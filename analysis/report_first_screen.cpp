// The first screen of report.html (issue 48): what was simulated, then the answer per queue in
// sentences with intervals and what binds, before any warning or table.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/detail/report.hpp"
#include "analysis/recorder.hpp"
#include "analysis/units.hpp"

namespace t9k::analysis::detail {

namespace {

// At most this many pools by name; the rest are counted (an export can have hundreds).
constexpr std::size_t kPoolsNamed = 8;

std::string pool_phrase(const RunSetup::Pool& p) {
  const std::string gpus =
      p.gpus_per_node == 0 ? "no GPUs"
                           : fmt::format("{} {}GPU{} each", p.gpus_per_node,
                                         p.gpu_model.empty() ? "" : html_escape(p.gpu_model) + " ",
                                         p.gpus_per_node == 1 ? "" : "s");
  return fmt::format("{} × <b>{}</b> ({})", format_count(static_cast<double>(p.count)),
                     html_escape(p.name), gpus);
}

std::string cluster_line(const RunSetup& s) {
  std::int64_t nodes = 0, gpus = 0;
  std::vector<std::string> named;
  for (std::size_t i = 0; i < s.pools.size(); ++i) {
    nodes += s.pools[i].count;
    gpus += s.pools[i].count * s.pools[i].gpus_per_node;
    if (i < kPoolsNamed) named.push_back(pool_phrase(s.pools[i]));
  }
  std::string line = fmt::format("{}", fmt::join(named, ", "));
  if (s.pools.size() > kPoolsNamed)
    line += fmt::format(" and {} more pools", s.pools.size() - kPoolsNamed);
  return fmt::format("{}: {} GPUs on {} nodes", line, format_count(static_cast<double>(gpus)),
                     format_count(static_cast<double>(nodes)));
}

std::string queue_phrase(const RunSetup::Queue& q) {
  std::vector<std::string> quota;
  for (const auto& [resource, amount] : q.quota) {
    quota.push_back(resource == "nvidia.com/gpu" ? html_escape(amount) + " GPUs"
                                                 : html_escape(resource + " " + amount));
  }
  return fmt::format("<b>{}</b> (priority {}, {})", html_escape(q.name), q.priority,
                     quota.empty() ? std::string("no quota")
                                   : "quota " + fmt::format("{}", fmt::join(quota, ", ")));
}

std::string setup_list(const std::vector<RunSummary>& runs, const RunSetup& s) {
  std::string h = "<ul class=\"setup\">\n";
  h += "<li><b>Cluster</b>: " + cluster_line(s) + "</li>\n";
  if (s.scheduler == "t9k") {
    std::vector<std::string> queues;
    for (const auto& q : s.queues) queues.push_back(queue_phrase(q));
    h += "<li><b>Scheduler</b>: T9k queues " +
         (queues.empty() ? std::string("(only default)")
                         : fmt::format("{}", fmt::join(queues, "; "))) +
         "</li>\n";
  } else {
    h += "<li><b>Scheduler</b>: the Kubernetes default scheduler (no queues)</li>\n";
  }
  h += "<li><b>Workload</b>: " +
       (s.workload.empty() ? std::string("none")
                           : html_escape(fmt::format("{}", fmt::join(s.workload, "; ")))) +
       "</li>\n";
  h += "<li><b>Faults</b>: " +
       (s.faults == "none" || s.faults.empty() ? std::string("none")
                                               : "profile " + html_escape(s.faults)) +
       "</li>\n";
  h += fmt::format("<li><b>Horizon</b>: {} from time 0, {} replication{} (seed {})</li>\n",
                   format_duration_s(runs.front().horizon_s), runs.size(),
                   runs.size() == 1 ? "" : "s", runs.front().seed);
  return h + "</ul>\n";
}

// One queue's answer: its waits with their intervals, and whether its jobs waited on the quota or
// on the nodes (the scheduler's own reasons, summed over the runs' means).
std::string queue_answer(const ReportVariant& v, const std::string& queue) {
  const auto& m = v.replications.metrics;
  const auto get = [&](const std::string& metric) -> const Interval* {
    const auto it = m.find(fmt::format("{}/{}/{}", kGroupQueue, queue, metric));
    return it == m.end() ? nullptr : &it->second.interval;
  };
  const auto mean = [&](const char* metric) {
    const Interval* i = get(metric);
    return i ? i->mean : 0.0;
  };
  std::string s = "<li><b>" + html_escape(queue) + "</b>: ";
  const Interval* p50 = get("wait_p50_s");
  const Interval* p90 = get("wait_p90_s");
  if (!p50 || !p90) return s + "no job ran in this queue</li>\n";
  s += fmt::format("median wait {}, p90 wait {}", html_escape(metric_value("wait_p50_s", *p50)),
                   html_escape(metric_value("wait_p90_s", *p90)));
  const double on_quota = mean("job_hours_pending_quota");
  const double on_nodes = mean("job_hours_pending_capacity") +
                          mean("job_hours_pending_constraints") +
                          mean("job_hours_pending_preempting");
  const double waited = on_quota + on_nodes + mean("job_hours_pending_queue_order") +
                        mean("job_hours_pending_gang_members");
  if (waited <= 0) return s + "; its jobs never waited for resources.</li>\n";
  if (on_quota >= 0.5 * waited) {
    s += fmt::format(
        "; {} of the job-hours its jobs waited were on its quota: <b>the quota "
        "binds</b>, not the nodes",
        format_percent(on_quota / waited));
  } else if (on_nodes >= 0.5 * waited) {
    s += fmt::format(
        "; {} of the job-hours its jobs waited found no node with room: <b>the "
        "nodes bind</b>, not the quota",
        format_percent(on_nodes / waited));
  } else {
    s += fmt::format("; its jobs waited {} on its quota and {} for nodes, neither mostly",
                     format_percent(on_quota / waited), format_percent(on_nodes / waited));
  }
  return s + ".</li>\n";
}

}  // namespace

std::string setup_section(const std::vector<RunSummary>& runs, std::string_view note) {
  if (runs.empty() || !runs.front().setup.present) return {};
  const RunSetup& s = runs.front().setup;
  std::string h = "<h2>What was simulated</h2>\n";
  if (!s.description.empty()) h += "<p class=\"q\">" + html_escape(s.description) + "</p>\n";
  if (!note.empty()) h += "<p class=\"q\">" + html_escape(note) + "</p>\n";
  return h + setup_list(runs, s);
}

std::string first_screen(const ReportInput& in) {
  const auto& base = in.variants.front();
  std::string h = setup_section(base.replications.runs, "");
  const auto queues = group_values(in, kGroupQueue);
  if (queues.empty()) return h;
  h += "<h2>The answer, by queue</h2>\n<p class=\"q\">";
  h += in.kind == ReportKind::Run ? "One run: a single sample, without an interval."
                                  : "Means with their 95 % intervals over the replications.";
  if (in.kind == ReportKind::Comparison)
    h += " For the base variant (" + html_escape(base.name) +
         "); the tables below compare the variants.";
  h += "</p>\n<ul class=\"answer\">\n";
  for (const auto& q : queues) h += queue_answer(base, q);
  return h + "</ul>\n";
}

}  // namespace t9k::analysis::detail
