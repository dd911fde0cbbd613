// The first screen of report.html (issue 48): what was simulated, then the answer per queue in
// sentences with intervals and what binds, before any warning or table.
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/detail/report.hpp"
#include "analysis/goal.hpp"
#include "analysis/job_forecast.hpp"
#include "analysis/recorder.hpp"
#include "analysis/statistics.hpp"
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
  std::string extra;
  if (p.price_per_node_hour > 0)
    extra += fmt::format(", {} per node-hour", format_number(p.price_per_node_hour));
  if (p.busy_watts > 0) extra += fmt::format(", up to {} kW", format_number(p.busy_watts / 1000));
  return fmt::format("{} × <b>{}</b> ({}{})", format_count(static_cast<double>(p.count)),
                     html_escape(p.name), gpus, extra);
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

// The lines of "What was simulated", label and HTML.
std::vector<std::pair<std::string, std::string>> setup_items(const std::vector<RunSummary>& runs,
                                                             const RunSetup& s) {
  std::vector<std::pair<std::string, std::string>> items;
  items.emplace_back("Cluster", cluster_line(s));
  if (s.scheduler == "t9k") {
    std::vector<std::string> queues;
    for (const auto& q : s.queues) queues.push_back(queue_phrase(q));
    items.emplace_back(
        "Scheduler", "T9k queues " + (queues.empty() ? std::string("(only default)")
                                                     : fmt::format("{}", fmt::join(queues, "; "))));
  } else {
    items.emplace_back("Scheduler", "the Kubernetes default scheduler (no queues)");
  }
  items.emplace_back("Workload", s.workload.empty()
                                     ? std::string("none")
                                     : html_escape(fmt::format("{}", fmt::join(s.workload, "; "))));
  items.emplace_back("Faults", s.faults == "none" || s.faults.empty()
                                   ? std::string("none")
                                   : "profile " + html_escape(s.faults));
  items.emplace_back("Horizon", fmt::format("{} from time 0, {} replication{} (seed {})",
                                            format_duration_s(runs.front().horizon_s), runs.size(),
                                            runs.size() == 1 ? "" : "s", runs.front().seed));
  // What the figures above already include, said as such (issue 48: a page read as if the
  // scenario file's quota applied).
  if (!s.overrides.empty()) {
    std::vector<std::string> sets;
    for (const auto& o : s.overrides) sets.push_back("<code>--set " + html_escape(o) + "</code>");
    items.emplace_back("Changed from the scenario file", fmt::format("{}", fmt::join(sets, ", ")));
  }
  return items;
}

std::string setup_list(const std::vector<RunSummary>& runs, const RunSetup& s) {
  std::string h = "<ul class=\"setup\">\n";
  for (const auto& [label, html] : setup_items(runs, s))
    h += "<li><b>" + html_escape(label) + "</b>: " + html + "</li>\n";
  return h + "</ul>\n";
}

// A comparison's variants: each one's overlay (its text behind a click) and the lines of "What
// was simulated" it changes; the base is the list above.
std::string variants_section(const ReportInput& in) {
  if (in.kind != ReportKind::Comparison || in.variants.size() < 2) return {};
  const auto& base = in.variants.front();
  if (base.replications.runs.empty() || !base.replications.runs.front().setup.present) return {};
  const auto before = setup_items(base.replications.runs, base.replications.runs.front().setup);
  std::string h = fmt::format(
      "<p><b>Variants</b>: <b>{}</b> is the scenario above; each other merges an overlay onto "
      "it.</p>\n<ul class=\"setup\">\n",
      html_escape(base.name));
  for (std::size_t k = 1; k < in.variants.size(); ++k) {
    const auto& v = in.variants[k];
    std::vector<std::string> changed;
    if (!v.replications.runs.empty() && v.replications.runs.front().setup.present) {
      const auto after = setup_items(v.replications.runs, v.replications.runs.front().setup);
      for (const auto& item : after) {
        if (std::find(before.begin(), before.end(), item) == before.end())
          changed.push_back(item.first + ": " + item.second);
      }
    }
    h += "<li><b>" + html_escape(v.name) + "</b>: ";
    h += v.overlay ? "overlay <code>" + html_escape(v.overlay->file) + "</code>"
                   : std::string("an overlay");
    h += changed.empty() ? std::string(
                               ", which changes nothing listed above (settings of the "
                               "scheduler, controllers or jobs)")
                         : fmt::format("; changes {}", fmt::join(changed, "; "));
    if (v.overlay && !v.overlay->text.empty()) {
      constexpr std::size_t kShown = 4000;  // an overlay is a few lines; a huge one is cut
      std::string text = v.overlay->text.substr(0, kShown);
      if (v.overlay->text.size() > kShown) text += "\n…";
      h += "<details><summary>the overlay</summary><pre>" + html_escape(text) + "</pre></details>";
    }
    h += "</li>\n";
  }
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
  // Over every replication's jobs together, the p90 a planner quotes for the whole period.
  const auto pooled =
      v.replications.pooled.find(fmt::format("{}/{}/pooled_wait_p90_s", kGroupQueue, queue));
  if (pooled != v.replications.pooled.end() && v.replications.runs.size() > 1) {
    s += fmt::format(" (p90 over all {} replications' jobs together: {})",
                     v.replications.runs.size(),
                     html_escape(format_metric("wait_p90_s", pooled->second)));
  }
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
  if (const Interval* cost = get("cost_allocated")) {
    const Interval* per = get("cost_per_productive_gpu_hour");
    s += fmt::format("; its jobs' GPU-time cost {}{}",
                     html_escape(metric_value("cost_allocated", *cost)),
                     per ? " (" + html_escape(metric_value("cost_per_productive_gpu_hour", *per)) +
                               " per productive GPU-hour)"
                         : std::string());
  }
  return s + ".</li>\n";
}

// The cluster's cost and energy, when its nodes have prices or power (docs/outputs.md "Cost and
// energy").
std::string cost_answer(const ReportVariant& v) {
  const auto& m = v.replications.metrics;
  const auto text = [&](const char* metric) {
    const auto it = m.find(metric);
    return it == m.end() ? std::string() : html_escape(metric_value(metric, it->second.interval));
  };
  std::vector<std::string> parts;
  if (m.count("cost_total")) {
    parts.push_back(fmt::format(
        "the cluster cost {} ({} of it GPU-time allocated to jobs, {} capacity not allocated); "
        "each productive GPU-hour cost {} with idle capacity counted",
        text("cost_total"), text("cost_allocated"), text("cost_idle"),
        text("cost_total_per_productive_gpu_hour")));
  }
  if (m.count("energy_total_kwh"))
    parts.push_back(fmt::format("it drew {}", text("energy_total_kwh")));
  if (parts.empty()) return {};
  return fmt::format("<p><b>Cost and energy</b>: {}.</p>\n", fmt::join(parts, "; "));
}

// `t9ksim replay-check`'s own answer (docs/traces.md "Recorded versus simulated"): how far the
// replay's waits and ends are from the export's, from replay-check.csv.
std::string replay_answer(const ReportInput& in) {
  const CsvTable& t = in.variants.front().sample.replay_check;
  if (t.rows.empty()) return {};
  // "on average the replay VERB D MORE" (or LESS when the replay's values are the smaller).
  const auto sentence = [&](const char* column, const char* what, const char* verb,
                            const char* more, const char* less) {
    std::vector<double> err, abs;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      if (const auto e = t.number(i, column)) {
        err.push_back(*e);
        abs.push_back(std::fabs(*e));
      }
    }
    if (err.empty()) return fmt::format("<li><b>{}</b>: no job to compare</li>\n", what);
    double mean = 0;
    for (const double e : err) mean += e / static_cast<double>(err.size());
    return fmt::format(
        "<li><b>{}</b> of {} job{}: off by {} at the median and {} at p90 (the worst {}); on "
        "average the replay {} {} {}</li>\n",
        what, format_count(static_cast<double>(err.size())), err.size() == 1 ? "" : "s",
        format_duration_s(percentile(std::span<const double>(abs), 0.5)),
        format_duration_s(percentile(std::span<const double>(abs), 0.9)),
        format_duration_s(*std::max_element(abs.begin(), abs.end())), verb,
        format_duration_s(std::fabs(mean)), mean >= 0 ? more : less);
  };
  std::string h = fmt::format(
      "<h2>The answer: how close the replay is</h2>\n<p class=\"q\">The {} recorded jobs of the "
      "export against the replay (replay-check.csv has each one).</p>\n<ul class=\"answer\">\n",
      format_count(static_cast<double>(t.rows.size())));
  h += sentence("wait_error_s", "Waits", "waits", "longer", "less");
  h += sentence("end_error_s", "Ends", "ends", "later", "earlier");
  return h + "</ul>\n";
}

// `t9ksim forecast --job`'s own answer: when the job starts and ends, and why it waits.
std::string job_answer(const ReportInput& in) {
  if (in.job_forecast.rows.empty()) return {};
  const JobForecast f = parse_job_forecast(in.job_forecast);
  const auto lines = job_forecast_lines(f, answer_job_forecast(f));
  std::string first = lines.front();
  if (first.ends_with(':')) first.pop_back();
  std::string h = "<h2>The answer: when your job starts</h2>\n<p class=\"q\">" +
                  html_escape(first) +
                  ". job-forecast.csv has each replication.</p>\n<ul class=\"answer\">\n";
  for (std::size_t i = 1; i < lines.size(); ++i) h += "<li>" + html_escape(lines[i]) + "</li>\n";
  return h + "</ul>\n";
}

// The command's targets (--target on run or compare, kept in the runs' summaries), checked over
// each variant's replications: met or not, in the form each is checked in.
std::string targets_answer(const ReportInput& in) {
  const auto& runs = in.variants.front().replications.runs;
  if (runs.empty() || runs.front().setup.targets.empty()) return {};
  std::string h = "<p><b>Targets</b>, checked over the replications:</p>\n<ul class=\"answer\">\n";
  for (const auto& t : parse_stored_targets(runs.front().setup.targets)) {
    h += "<li><code>" + html_escape(t.text) + "</code>: ";
    std::vector<std::string> verdicts;
    for (const auto& v : in.variants) {
      const TargetCheck c = check_target(t, v.replications);
      std::string verdict = (c.present && c.met) ? "<b>met</b>" : "<b>not met</b>";
      verdict += " (" + html_escape(describe_check(t, c)) + ")";
      verdicts.push_back(in.kind == ReportKind::Comparison ? html_escape(v.name) + ": " + verdict
                                                           : verdict);
    }
    h += fmt::format("{}</li>\n", fmt::join(verdicts, "; "));
  }
  return h + "</ul>\n";
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
  std::string h = job_answer(in) + setup_section(base.replications.runs, "") +
                  variants_section(in) + replay_answer(in);
  const auto queues = group_values(in, kGroupQueue);
  if (queues.empty()) return h + cost_answer(base) + targets_answer(in);
  h += "<h2>The answer, by queue</h2>\n<p class=\"q\">";
  h += in.kind == ReportKind::Run ? "One run: a single sample, without an interval."
                                  : "Means with their 95 % intervals over the replications.";
  if (in.kind == ReportKind::Comparison)
    h += " For the base variant (" + html_escape(base.name) +
         "); the tables below compare the variants.";
  h += "</p>\n<ul class=\"answer\">\n";
  for (const auto& q : queues) h += queue_answer(base, q);
  return h + "</ul>\n" + cost_answer(base) + targets_answer(in);
}

}  // namespace t9k::analysis::detail
