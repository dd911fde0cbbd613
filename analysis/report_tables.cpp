// The report's HTML tables: headline metrics, per queue, kind and class, runs, why jobs waited, the
// longest waits, the initial state.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "analysis/detail/report.hpp"
#include "analysis/outputs.hpp"
#include "analysis/recorder.hpp"
#include "analysis/report_assets.hpp"
#include "analysis/statistics.hpp"
#include "analysis/sweep.hpp"
#include "analysis/units.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace detail {

namespace {

// The metrics of `family` whose paired difference stays significant after Holm's correction for
// the family (the report's tables: one family per table).
std::set<std::string> holm_significant(const std::map<std::string, PairedDifference>& diffs,
                                       const std::vector<TableRow>& family) {
  std::vector<std::pair<double, std::string>> ps;
  for (const auto& row : family) {
    if (row.metric.empty()) continue;
    const auto it = diffs.find(row.metric);
    if (it != diffs.end()) ps.emplace_back(paired_p_value(it->second.difference), row.metric);
  }
  return analysis::holm_significant(std::move(ps), 1 - kConfidence);
}

}  // namespace

std::string compact_metric_table(const ReportInput& in, const std::vector<TableRow>& rows) {
  std::string h =
      "<div class=\"wide\"><table class=\"headline compact\"><thead><tr><th>metric</th>";
  for (std::size_t k = 0; k < in.variants.size(); ++k) {
    const auto& v = in.variants[k];
    h += fmt::format("<th>{}<br><span class=\"sub\">{}</span></th>", html_escape(v.name),
                     k == 0 ? fmt::format("mean ± 95 % CI (n={})", v.replications.runs.size())
                            : std::string("mean; change vs base"));
  }
  h += "</tr></thead><tbody>\n";
  std::vector<std::set<std::string>> significant(in.variants.size());
  for (std::size_t k = 1; k < in.variants.size(); ++k)
    significant[k] = holm_significant(in.variants[k].vs_base, rows);
  for (const auto& row : rows) {
    if (row.metric.empty()) {
      h += fmt::format("<tr class=\"group\"><th colspan=\"{}\">{}</th></tr>\n",
                       in.variants.size() + 1, html_escape(row.label));
      continue;
    }
    const std::string& m = row.metric;
    h += fmt::format("<tr><td title=\"{}\">{}</td>", html_escape(m), html_escape(row.label));
    const auto& base = in.variants[0].replications.metrics;
    const auto b = base.find(m);
    h += "<td class=\"num\">" +
         (b == base.end() ? std::string("–") : html_escape(metric_value(m, b->second.interval))) +
         "</td>";
    for (std::size_t k = 1; k < in.variants.size(); ++k) {
      const auto& v = in.variants[k];
      const auto it = v.replications.metrics.find(m);
      const auto d = v.vs_base.find(m);
      if (it == v.replications.metrics.end()) {
        h += "<td class=\"num\">–</td>";
        continue;
      }
      Interval mean_only = it->second.interval;
      mean_only.half_width = std::nan("");
      std::string change, tip = metric_value(m, it->second.interval);
      if (d != v.vs_base.end()) {
        const double base_mean = b == base.end() ? 0 : b->second.interval.mean;
        change = base_mean != 0
                     ? relative_change(d->second.difference, base_mean)
                     : difference_value(m, Interval{d->second.difference.mean, 0, std::nan(""), 1});
        tip += "; difference " + difference_value(m, d->second.difference);
      }
      const bool sig = significant[k].count(m) > 0;
      if (sig) tip += "; significant at 95 % after Holm's correction";
      h += fmt::format("<td class=\"num{}\" title=\"{}\">{}<br><span class=\"sub\">{}</span></td>",
                       sig ? " sig" : "", html_escape(tip), html_escape(metric_value(m, mean_only)),
                       html_escape(change));
    }
    h += "</tr>\n";
  }
  return h + "</tbody></table></div>\n";
}

std::string metric_table(const ReportInput& in, const std::vector<TableRow>& rows) {
  if (in.kind == ReportKind::Comparison && in.variants.size() > kWideVariants)
    return compact_metric_table(in, rows);
  std::string h = "<table class=\"headline\"><thead><tr><th>metric</th>";
  const bool run = in.kind == ReportKind::Run;
  std::size_t columns = 1;
  for (std::size_t k = 0; k < in.variants.size(); ++k) {
    const auto& v = in.variants[k];
    if (run) {
      h += "<th>value</th>";
    } else {
      h += fmt::format("<th>{}<br><span class=\"sub\">mean ± 95 % CI (n={})</span></th>",
                       html_escape(v.name), v.replications.runs.size());
    }
    ++columns;
    if (k > 0) {
      h += fmt::format("<th>{} − {}<br><span class=\"sub\">paired, 95 % CI (% of base)</span></th>",
                       html_escape(v.name), html_escape(in.variants[0].name));
      ++columns;
    }
  }
  h += "</tr></thead><tbody>\n";
  std::vector<std::set<std::string>> significant(in.variants.size());
  for (std::size_t k = 1; k < in.variants.size(); ++k)
    significant[k] = holm_significant(in.variants[k].vs_base, rows);
  for (const auto& row : rows) {
    if (row.metric.empty()) {
      h += fmt::format("<tr class=\"group\"><th colspan=\"{}\">{}</th></tr>\n", columns,
                       html_escape(row.label));
      continue;
    }
    const std::string& m = row.metric;
    h += fmt::format("<tr><td title=\"{}\">{}</td>", html_escape(m), html_escape(row.label));
    for (std::size_t k = 0; k < in.variants.size(); ++k) {
      const auto& v = in.variants[k];
      const auto it = v.replications.metrics.find(m);
      h +=
          "<td class=\"num\">" +
          (it == v.replications.metrics.end() ? std::string("–")
                                              : html_escape(metric_value(m, it->second.interval))) +
          "</td>";
      if (k > 0) {
        const auto d = v.vs_base.find(m);
        if (d == v.vs_base.end()) {
          h += "<td class=\"num\">–</td>";
        } else {
          const bool sig = significant[k].count(m) > 0;
          const auto base = in.variants[0].replications.metrics.find(m);
          const double base_mean =
              base == in.variants[0].replications.metrics.end() ? 0 : base->second.interval.mean;
          const std::string change =
              base_mean != 0 && std::isfinite(d->second.difference.mean)
                  ? " (" + relative_change(d->second.difference, base_mean) + ")"
                  : std::string();
          h += fmt::format("<td class=\"num{}\">{}{}{}</td>", sig ? " sig" : "",
                           html_escape(difference_value(m, d->second.difference)),
                           html_escape(change),
                           sig ? " <span class=\"flag\">significant</span>" : "");
        }
      }
    }
    h += "</tr>\n";
  }
  h += "</tbody></table>\n";
  return h;
}

std::string headline_table(const ReportInput& in) {
  std::vector<TableRow> rows;
  for (const auto& m : ordered_metrics(in)) rows.push_back({m, label_of(m)});
  return metric_table(in, rows);
}

// What makes the figures misleading on their own: runs' own warnings (a fault profile with no
// fault), a warm-up that takes more than a third of the horizon, intervals from fewer than 5
// replications.
// Distinct run warnings shown per variant; the rest are counted (summary.json has them all).
constexpr std::size_t kWarningsPerVariant = 5;

std::string warnings_block(const ReportInput& in) {
  std::vector<std::string> warnings;
  std::set<std::string> seen;
  for (const auto& v : in.variants) {
    // Each distinct warning once, with how many runs gave it when not all did ("1 of 1 runs"
    // read as if more had run).
    std::map<std::string, std::size_t> runs_with;
    std::vector<std::string> order;
    std::size_t fault_free = 0;
    std::string profile;
    for (const auto& r : v.replications.runs) {
      std::set<std::string> here;
      for (const auto& w : r.warnings) {
        if (auto p = no_fault_profile(w)) {
          profile = std::move(*p);
          ++fault_free;
          continue;
        }
        if (here.insert(w).second && runs_with[w]++ == 0) order.push_back(w);
      }
    }
    // A replication without a fault is chance; no fault in every replication is a caution.
    const std::size_t n_runs = v.replications.runs.size();
    const std::string prefix = in.variants.size() > 1 ? v.name + ": " : "";
    if (fault_free > 0 && fault_free == n_runs)
      warnings.push_back(prefix + no_fault_warning(profile, n_runs));
    for (std::size_t i = 0; i < order.size() && i < kWarningsPerVariant; ++i) {
      const std::size_t k = runs_with[order[i]];
      const std::string text =
          prefix + order[i] + (k == n_runs ? "" : fmt::format(" ({} of {} runs)", k, n_runs));
      if (seen.insert(text).second) warnings.push_back(text);
    }
    if (order.size() > kWarningsPerVariant) {
      warnings.push_back(fmt::format("{}{} more warnings (summary.json \"warnings\")", prefix,
                                     order.size() - kWarningsPerVariant));
    }
    const auto warm = v.replications.metrics.find("warmup_s");
    if (warm != v.replications.metrics.end() && !v.replications.runs.empty()) {
      const double horizon = v.replications.runs.front().horizon_s;
      if (horizon > 0 && warm->second.interval.mean > horizon / 3) {
        warnings.push_back(
            fmt::format("{}the warm-up MSER-5 detects is {} of the {} horizon: the steady-state "
                        "figures rest on the last part of "
                        "the run only; simulate longer",
                        in.variants.size() > 1 ? v.name + ": " : "",
                        format_duration_s(warm->second.interval.mean), format_duration_s(horizon)));
      }
    }
  }
  const std::size_t n = in.variants.front().replications.runs.size();
  if (in.kind != ReportKind::Run && n < 5) {
    warnings.push_back(
        fmt::format("{} replications: the 95 % intervals are wide (Student-t with {} degree{} of "
                    "freedom); 5 or more give useful ones",
                    n, n - 1, n == 2 ? "" : "s"));
  }
  if (warnings.empty()) return "";
  std::string h = "<div class=\"warnings\"><strong>Read with care</strong><ul>\n";
  for (const auto& w : warnings) h += "<li>" + html_escape(w) + "</li>\n";
  return h + "</ul></div>\n";
}

std::string notes_block(const ReportInput& in) {
  std::vector<std::string> notes;
  std::set<std::string> seen;
  for (const auto& v : in.variants) {
    const std::string prefix = in.variants.size() > 1 ? v.name + ": " : "";
    for (const auto& r : v.replications.runs) {
      for (const auto& n : r.notes) {
        // "spec.initialState.fromExport: time zero is ...": the field is for the scenario's
        // author; the page says what was assumed.
        std::string text = n;
        if (text.starts_with("spec.")) {
          const auto colon = text.find(": ");
          if (colon != std::string::npos) text = text.substr(colon + 2);
        }
        if (seen.insert(prefix + text).second) notes.push_back(prefix + text);
      }
    }
  }
  if (notes.empty()) return "";
  std::string h = "<div class=\"notes\"><strong>What the run assumed</strong><ul>\n";
  for (const auto& n : notes) h += "<li>" + html_escape(n) + "</li>\n";
  return h + "</ul></div>\n";
}

// The values a group has in any variant ("queue" -> production, research), sorted.
std::vector<std::string> group_values(const ReportInput& in, const std::string& group) {
  std::set<std::string> values;
  const std::string head = group + "/";
  for (const auto& v : in.variants) {
    for (const auto& [k, _] : v.replications.metrics) {
      if (!k.starts_with(head)) continue;
      const auto slash = k.find('/', head.size());
      if (slash != std::string::npos) values.insert(k.substr(head.size(), slash - head.size()));
    }
  }
  return {values.begin(), values.end()};
}

// One heading per group value, then its metrics (docs/outputs.md "Metrics by group"). A run or
// replications: one column per value instead, so queues sit side by side.
std::string group_table(const ReportInput& in, const std::string& group,
                        const std::vector<std::string>& values) {
  if (in.kind != ReportKind::Comparison) {
    const auto& v = in.variants.front();
    std::vector<std::string> metrics;
    std::set<std::string> seen;
    for (const auto& value : values) {
      for (const auto& m : ordered_metrics(in, group + "/" + value + "/")) {
        if (seen.insert(m).second) metrics.push_back(m);
      }
    }
    // Headline order across values (ordered_metrics orders within one value).
    std::vector<std::string> ordered;
    for (const auto& info : kMetrics) {
      if (seen.count(info.name)) ordered.emplace_back(info.name);
    }
    for (const auto& m : metrics) {
      if (std::find(ordered.begin(), ordered.end(), m) == ordered.end()) ordered.push_back(m);
    }
    // Many queues (a trace replay has 15) scroll sideways instead of squeezing the labels.
    std::string h =
        "<div class=\"wide\"><table class=\"headline groups\"><thead><tr><th>metric</th>";
    for (const auto& value : values) {
      h += "<th>" + html_escape(value) +
           (in.kind == ReportKind::Run
                ? std::string()
                : fmt::format("<br><span class=\"sub\">mean ± 95 % CI (n={})</span>",
                              v.replications.runs.size())) +
           "</th>";
    }
    h += "</tr></thead><tbody>\n";
    for (const auto& m : ordered) {
      h += fmt::format("<tr><td title=\"{}\">{}</td>", html_escape(m), html_escape(label_of(m)));
      for (const auto& value : values) {
        const auto it = v.replications.metrics.find(group + "/" + value + "/" + m);
        h += "<td class=\"num\">" +
             (it == v.replications.metrics.end()
                  ? std::string("–")
                  : html_escape(metric_value(m, it->second.interval))) +
             "</td>";
      }
      h += "</tr>\n";
    }
    return h + "</tbody></table></div>\n";
  }
  std::vector<TableRow> rows;
  for (const auto& value : values) {
    const std::string prefix = group + "/" + value + "/";
    rows.push_back({"", group + " " + value});
    for (const auto& m : ordered_metrics(in, prefix)) rows.push_back({prefix + m, label_of(m)});
  }
  return metric_table(in, rows);
}

// A run's folder relative to the report's ("." for a single run); as given when unrelated.
std::string folder_name(const fs::path& dir, const fs::path& root) {
  if (root.empty()) return dir.generic_string();
  std::error_code ec;
  const fs::path rel = fs::relative(dir, root, ec);
  return (ec || rel.empty()) ? dir.generic_string() : rel.generic_string();
}

std::string runs_table(const ReportInput& in) {
  std::string h =
      "<table class=\"runs\"><thead><tr><th>variant</th><th>replication</th><th>seed</th>"
      "<th>fingerprint</th><th>invariants</th><th>directory</th></tr></thead><tbody>\n";
  for (const auto& v : in.variants) {
    for (const auto& r : v.replications.runs) {
      h += fmt::format(
          "<tr><td>{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{}</td><td><code>{}</code></td>"
          "<td>{}</td><td><code>{}</code></td></tr>\n",
          html_escape(v.name), r.replication, r.seed, html_escape(r.fingerprint),
          r.invariants_ok ? "ok" : "<strong>violated</strong>",
          html_escape(folder_name(r.dir, in.root)));
    }
  }
  h += "</tbody></table>\n";
  return h;
}

// Per queue and cause: the job-hours waited (summary.json, with its interval), the jobs whose
// last reason it was and the reason of the longest-waiting of them (jobs.csv of the sample run).
std::string pending_reasons_table(const ReportInput& in) {
  const auto& v = in.variants.front();
  const auto& t = v.sample.jobs;
  struct Last {
    int jobs = 0;
    double longest = -1;
    std::string job, reason;
  };
  std::map<std::pair<std::string, std::string>, Last> last;  // (queue, cause) -> jobs
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::string cause(t.field(i, "pending_cause"));
    if (cause.empty()) continue;
    Last& l = last[{std::string(t.field(i, "queue")), cause}];
    ++l.jobs;
    const double submit = t.number(i, "submit_s").value_or(0);
    const double waited =
        t.number(i, "wait_s").value_or(t.number(i, "end_s").value_or(v.sample.horizon_s) - submit);
    if (waited > l.longest) {
      l.longest = waited;
      l.job = t.field(i, "job");
      l.reason = t.field(i, "pending_reason");
    }
  }
  std::vector<std::string> queues = group_values(in, kGroupQueue);
  queues.insert(queues.begin(), "");  // the cluster first
  std::string body;
  for (const auto& q : queues) {
    const std::string prefix = q.empty() ? "" : std::string(kGroupQueue) + "/" + q + "/";
    double total = 0;
    for (const auto& c : kCauses)
      total += std::max(0.0, metric_mean(v, prefix + "job_hours_pending_" + c.column));
    if (total <= 0) continue;
    bool first = true;
    for (const auto& c : kCauses) {
      const std::string metric = prefix + "job_hours_pending_" + c.column;
      const auto it = v.replications.metrics.find(metric);
      if (it == v.replications.metrics.end() || it->second.interval.mean <= 0) continue;
      int jobs = 0;
      const Last* example = nullptr;
      for (const auto& [key, l] : last) {
        if (key.second != c.name || (!q.empty() && key.first != q)) continue;
        jobs += l.jobs;
        if (!example || l.longest > example->longest) example = &l;
      }
      body += fmt::format(
          "<tr><td class=\"queue\">{}</td><td>{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"reason\">{}</td></tr>\n",
          first ? html_escape(q.empty() ? std::string("all queues") : q) : "", html_escape(c.label),
          html_escape(metric_value(metric, it->second.interval)),
          html_escape(format_percent(it->second.interval.mean / total)), format_count(jobs),
          example ? "<code>" + html_escape(example->job) + "</code> (waited " +
                        html_escape(format_duration_s(example->longest)) +
                        "): " + html_escape(example->reason)
                  : std::string("–"));
      first = false;
    }
  }
  if (body.empty()) return "<p>No job waited for the scheduler.</p>\n";
  return "<div class=\"wide\"><table class=\"jobs reasons\"><thead><tr><th>queue</th><th>why it "
         "waited</th>"
         "<th>job-hours waiting</th><th>share</th><th>jobs, last reason</th><th>longest wait of "
         "those and its last "
         "reason" +
         std::string(in.kind == ReportKind::Run ? "" : " (first replication)") +
         "</th></tr></thead><tbody>\n" + body + "</tbody></table></div>\n";
}

std::string longest_waits_table(const ReportInput& in) {
  const auto& v = in.variants.front();
  const auto& t = v.sample.jobs;
  std::vector<std::pair<double, std::size_t>> waits;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (const auto w = t.number(i, "wait_s")) waits.emplace_back(*w, i);
  }
  std::stable_sort(waits.begin(), waits.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (waits.size() > 10) waits.resize(10);
  if (waits.empty()) return "<p>No job started running.</p>\n";
  std::string h =
      "<table class=\"jobs\"><thead><tr><th>job</th><th>kind</th><th>queue</th><th>wait</th>"
      "<th>phase</th><th>restarts</th><th>last reason it waited</th></tr></thead><tbody>\n";
  for (const auto& [w, i] : waits) {
    h += fmt::format(
        "<tr><td class=\"job\">{}</td><td>{}</td><td class=\"queue\">{}</td><td "
        "class=\"num\">{}</td>"
        "<td>{}</td><td class=\"num\">{}</td><td class=\"reason\">{}</td></tr>\n",
        html_escape(t.field(i, "job")), html_escape(t.field(i, "kind")),
        html_escape(queue_label(t.field(i, "queue"))), html_escape(format_duration_s(w)),
        html_escape(t.field(i, "phase")), html_escape(t.field(i, "restarts")),
        html_escape(t.field(i, "pending_reason")));
  }
  h += "</tbody></table>\n";
  return h;
}

// The jobs a run from spec.initialState started with (docs/forecast.md): running ones with their
// recorded nodes and time left, waiting ones in queue order. At most kRows of each.
std::string initial_state_section(const ReportInput& in) {
  if (in.variants.empty() || in.variants.front().sample.initial_state.rows.empty()) return "";
  const CsvTable& t = in.variants.front().sample.initial_state;
  constexpr std::size_t kRows = 20;
  std::vector<std::size_t> running, waiting;
  double running_gpus = 0, waiting_gpus = 0;
  std::size_t nodeless = 0;  // running without a pod in the export: the scheduler placed them
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const bool r = t.field(i, "state") == "Running";
    nodeless += r && t.field(i, "nodes").empty();
    (r ? running : waiting).push_back(i);
    (r ? running_gpus : waiting_gpus) += t.number(i, "gpus").value_or(0);
  }
  std::string h = "<h2>Starting state</h2>\n";
  h += fmt::format(
      "<p class=\"q\">Where the run started: the cluster export's jobs at time zero. {} running "
      "job{} "
      "({} GPUs) placed on their recorded nodes, with the time left that the remaining-work model "
      "gave; "
      "{} waiting job{} ({} GPUs) queued in creation order (initial-state.csv has every job; "
      "docs/forecast.md).{}</p>\n",
      running.size(), running.size() == 1 ? "" : "s", num(running_gpus), waiting.size(),
      waiting.size() == 1 ? "" : "s", num(waiting_gpus),
      nodeless == 0 ? ""
                    : fmt::format(" {} of the running jobs had no pod in the export: the "
                                  "scheduler placed {}.",
                                  nodeless, nodeless == 1 ? "it" : "them"));
  const auto table = [&](const std::vector<std::size_t>& rows, bool run) {
    if (rows.empty()) return std::string();
    std::string s = fmt::format(
        "<table class=\"jobs\"><thead><tr><th>{}</th><th>job</th><th>kind</th><th>queue</th>"
        "<th>GPUs</th>{}</tr></thead><tbody>\n",
        run ? "running" : "queue position",
        run ? "<th>ran before time zero (h)</th><th>runs on (h)</th><th>nodes</th>"
            : "<th>run time (h)</th>");
    for (std::size_t k = 0; k < rows.size() && k < kRows; ++k) {
      const std::size_t i = rows[k];
      s += fmt::format(
          "<tr><td class=\"num\">{}</td><td class=\"job\">{}</td><td>{}</td><td "
          "class=\"queue\">{}</td>"
          "<td class=\"num\">{}</td>",
          k + 1, html_escape(t.field(i, "job")), html_escape(t.field(i, "kind")),
          html_escape(queue_label(t.field(i, "queue"))), html_escape(t.field(i, "gpus")));
      const auto hours = [&](const char* col) { return num(t.number(i, col).value_or(0) / 3600); };
      if (run) {
        s +=
            fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                        hours("elapsed_s"), hours("remaining_s"), html_escape(t.field(i, "nodes")));
      } else {
        s += fmt::format("<td class=\"num\">{}</td></tr>\n", hours("remaining_s"));
      }
    }
    s += "</tbody></table>\n";
    if (rows.size() > kRows)
      s += fmt::format("<p class=\"q\">and {} more.</p>\n", rows.size() - kRows);
    return s;
  };
  return h + table(running, true) + table(waiting, false);
}

}  // namespace detail

}  // namespace t9k::analysis
