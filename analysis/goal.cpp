#include "analysis/goal.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/intervals.hpp"
#include "analysis/recorder.hpp"
#include "analysis/statistics.hpp"
#include "analysis/units.hpp"
#include "kernel/time.hpp"

namespace t9k::analysis {

namespace {

// The metric names a target may use (summary.json), without the group prefix.
const std::set<std::string>& known_metrics() {
  static const std::set<std::string> k = {"pooled_wait_p50_s",
                                          "pooled_wait_p90_s",
                                          "pooled_wait_p99_s",
                                          "pooled_jct_p50_s",
                                          "pooled_jct_p90_s",
                                          "jobs_submitted",
                                          "jobs_succeeded",
                                          "jobs_failed",
                                          "jobs_rejected",
                                          "jobs_unfinished",
                                          "jobs_never_started",
                                          "wait_mean_s",
                                          "wait_p50_s",
                                          "wait_p90_s",
                                          "wait_p99_s",
                                          "jct_mean_s",
                                          "jct_p50_s",
                                          "jct_p90_s",
                                          "slowdown_mean",
                                          "gpu_hours_capacity",
                                          "gpu_hours_installed",
                                          "gpu_hours_down",
                                          "gpu_hours_unallocated",
                                          "gpu_hours_allocated",
                                          "gpu_hours_productive",
                                          "gpu_hours_idle",
                                          "gpu_hours_lost_fault",
                                          "gpu_hours_lost_software",
                                          "gpu_hours_lost_preemption",
                                          "gpu_hours_lost_scale",
                                          "gpu_hours_lost_pause",
                                          "gpu_hours_lost_maxDuration",
                                          "gpu_hours_lost_other",
                                          "utilization_allocated",
                                          "utilization_productive",
                                          "goodput",
                                          "quota_share_used",
                                          "quota_share_while_waiting",
                                          "utilization_while_waiting",
                                          "waiting_hours",
                                          "steady_utilization_allocated",
                                          "steady_utilization_productive",
                                          "steady_pending_jobs",
                                          "steady_fairness_jain",
                                          "warmup_s",
                                          "cost_total",
                                          "cost_allocated",
                                          "cost_idle",
                                          "cost_per_productive_gpu_hour",
                                          "cost_total_per_productive_gpu_hour",
                                          "energy_total_kwh",
                                          "energy_kwh"};
  return k;
}

std::optional<double> number(std::string_view s) {
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

// "[GROUP=VALUE] METRIC" at the front of `w`: the full summary.json name; the words are consumed.
std::optional<std::string> take_metric(std::vector<std::string>& w, std::string& error) {
  std::string prefix;
  if (!w.empty() && w.front().find('=') != std::string::npos) {
    const std::string g = w.front();
    const auto eq = g.find('=');
    const std::string group = g.substr(0, eq), value = g.substr(eq + 1);
    if ((group != kGroupQueue && group != kGroupKind && group != kGroupClass) || value.empty()) {
      error = fmt::format(
          "\"{}\": expected queue=NAME, kind=KIND or class=PREFIX before the metric", g);
      return std::nullopt;
    }
    prefix = group + "/" + value + "/";
    w.erase(w.begin());
  }
  if (w.empty()) {
    error = "expected a metric, e.g. wait_p90 or cost_total";
    return std::nullopt;
  }
  std::string metric = w[0];
  if (metric.starts_with("utilisation")) metric.replace(0, 11, "utilization");
  if (!known_metrics().count(metric) && known_metrics().count(metric + "_s")) metric += "_s";
  if (!known_metrics().count(metric)) {
    error = fmt::format("unknown metric \"{}\" (docs/outputs.md lists them)", w[0]);
    return std::nullopt;
  }
  // Which metrics exist where (docs/outputs.md "Metrics by group").
  static const std::set<std::string> kClusterOnly = {"gpu_hours_capacity",
                                                     "gpu_hours_installed",
                                                     "gpu_hours_down",
                                                     "gpu_hours_unallocated",
                                                     "utilization_allocated",
                                                     "utilization_productive",
                                                     "goodput",
                                                     "steady_utilization_allocated",
                                                     "steady_utilization_productive",
                                                     "steady_pending_jobs",
                                                     "steady_fairness_jain",
                                                     "warmup_s",
                                                     "cost_total",
                                                     "cost_idle",
                                                     "cost_total_per_productive_gpu_hour",
                                                     "energy_total_kwh"};
  static const std::set<std::string> kQueueOnly = {"quota_share_used", "quota_share_while_waiting",
                                                   "utilization_while_waiting", "waiting_hours"};
  if (!prefix.empty() && kClusterOnly.count(metric)) {
    error = fmt::format("{} is a cluster-wide metric; drop the {} before it", metric,
                        prefix.substr(0, prefix.find('/')) + "=...");
    return std::nullopt;
  }
  if (metric.starts_with("pooled_") && prefix.starts_with(std::string(kGroupClass) + "/")) {
    error = fmt::format("{} is pooled by queue and kind only (jobs.csv has no class)", metric);
    return std::nullopt;
  }
  if (kQueueOnly.count(metric) && !prefix.starts_with(std::string(kGroupQueue) + "/")) {
    error = fmt::format("{} is a metric of a queue; write queue=NAME {} ...", metric, metric);
    return std::nullopt;
  }
  w.erase(w.begin());
  return prefix + metric;
}

}  // namespace

std::string_view to_string(TargetOp op) {
  switch (op) {
    case TargetOp::Less:
      return "<";
    case TargetOp::LessEqual:
      return "<=";
    case TargetOp::Greater:
      return ">";
    case TargetOp::GreaterEqual:
      return ">=";
  }
  return "?";
}

std::optional<std::string> parse_metric(std::string_view text, std::string& error) {
  auto w = words(text);
  auto metric = take_metric(w, error);
  if (metric && !w.empty()) {
    error = fmt::format(
        "\"{}\": expected [GROUP=VALUE] METRIC, e.g. cost_total or "
        "'queue=production wait_p90'",
        text);
    return std::nullopt;
  }
  return metric;
}

std::optional<Target> parse_target(std::string_view text, std::string& error) {
  // Operators may be written without spaces: "wait_p90<1h".
  std::string spaced;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' || c == '>') {
      spaced += ' ';
      spaced += c;
      if (i + 1 < text.size() && text[i + 1] == '=') spaced += text[++i];
      spaced += ' ';
    } else {
      spaced += c;
    }
  }
  auto w = words(spaced);
  Target t;
  t.text = std::string(text);
  const auto metric = take_metric(w, error);
  if (!metric) return std::nullopt;
  // The SLO form: "... in 90% of runs".
  if (w.size() == 6 && w[2] == "in" && w[4] == "of" && (w[5] == "runs" || w[5] == "replications")) {
    const std::string& p = w[3];
    const auto v = p.size() > 1 && p.back() == '%'
                       ? number(std::string_view(p).substr(0, p.size() - 1))
                       : std::nullopt;
    if (!v || !(*v > 0 && *v <= 100)) {
      error = fmt::format(
          "\"in {} of {}\": expected a percentage above 0% and at most 100%, "
          "e.g. 'in 90% of runs'",
          p, w[5]);
      return std::nullopt;
    }
    t.runs_share = *v / 100;
    w.resize(2);
  }
  if (w.size() != 2) {
    error =
        "expected [GROUP=VALUE] METRIC OP THRESHOLD [in P% of runs], e.g. 'queue=production "
        "wait_p90 < 1h' or 'queue=production wait_p90 < 1h in 90% of runs'";
    return std::nullopt;
  }
  t.metric = *metric;
  if (t.runs_share && is_pooled(t.metric)) {
    error = fmt::format(
        "{} is one value over every run's jobs pooled; 'in P% of runs' is for per-run metrics "
        "(drop pooled_, or the 'in ... of runs')",
        t.metric);
    return std::nullopt;
  }
  if (w[0] == "<")
    t.op = TargetOp::Less;
  else if (w[0] == "<=")
    t.op = TargetOp::LessEqual;
  else if (w[0] == ">")
    t.op = TargetOp::Greater;
  else if (w[0] == ">=")
    t.op = TargetOp::GreaterEqual;
  else {
    error = fmt::format("operator \"{}\": expected <, <=, > or >=", w[0]);
    return std::nullopt;
  }
  const std::string& th = w[1];
  if (auto v = number(th)) {
    t.threshold = *v;
  } else if (th.size() > 1 && th.back() == '%' &&
             number(std::string_view(th).substr(0, th.size() - 1))) {
    t.threshold = *number(std::string_view(th).substr(0, th.size() - 1)) / 100;
  } else if (metric->ends_with("_s")) {
    try {
      t.threshold = static_cast<double>(kernel::parse_duration(th).count()) / 1e6;
    } catch (const std::exception&) {
      error = fmt::format("threshold \"{}\": expected a number or a duration (30m, 1h)", th);
      return std::nullopt;
    }
  } else {
    error = fmt::format("threshold \"{}\": expected a number or a percentage", th);
    return std::nullopt;
  }
  return t;
}

bool meets_bound(const Target& t, double v) {
  switch (t.op) {
    case TargetOp::Less:
      return v < t.threshold;
    case TargetOp::LessEqual:
      return v <= t.threshold;
    case TargetOp::Greater:
      return v > t.threshold;
    case TargetOp::GreaterEqual:
      return v >= t.threshold;
  }
  return false;
}

std::vector<Target> parse_stored_targets(const std::vector<std::string>& texts) {
  std::vector<Target> out;
  for (const auto& text : texts) {
    std::string error;
    auto t = parse_target(text, error);
    if (!t) throw std::runtime_error(fmt::format("target '{}': {}", text, error));
    out.push_back(std::move(*t));
  }
  return out;
}

bool is_pooled(const std::string& metric) {
  return metric.starts_with("pooled_") || metric.find("/pooled_") != std::string::npos;
}

TargetCheck check_target(const Target& t, const ReplicationSummary& s) {
  TargetCheck c;
  if (is_pooled(t.metric)) {
    // One value over every run's jobs: met or not, no interval (analysis/pooled.hpp). A single
    // run (no replications summary) has its own percentile as the pooled one.
    double value = 0;
    if (const auto p = s.pooled.find(t.metric); p != s.pooled.end()) {
      value = p->second;
    } else if (s.runs.size() == 1) {
      std::string own = t.metric;
      own.erase(own.find("pooled_"), 7);
      const auto m = s.metrics.find(own);
      if (m == s.metrics.end()) return c;
      value = m->second.interval.mean;
    } else {
      return c;
    }
    c.present = true;
    c.mean = value;
    c.half_width = std::nan("");
    c.n = s.runs.size();
    c.met = meets_bound(t, value);
    c.confidence = c.met ? 1 : 0;
    return c;
  }
  const auto it = s.metrics.find(t.metric);
  if (it == s.metrics.end()) return c;
  c.present = true;
  const Interval& iv = it->second.interval;
  c.mean = iv.mean;
  c.half_width = iv.half_width;
  c.n = iv.n;
  if (t.runs_share) {
    const auto& values = it->second.values;
    c.runs_meeting = static_cast<std::size_t>(
        std::count_if(values.begin(), values.end(), [&](double v) { return meets_bound(t, v); }));
    // Met when the observed share reaches P (k >= P n, with P n rounded against float noise).
    const double needed = *t.runs_share * static_cast<double>(values.size());
    c.met = !values.empty() && static_cast<double>(c.runs_meeting) >= needed - 1e-9;
    c.share_lower = share_lower_bound(c.runs_meeting, values.size());
    c.confidence = 1 - binomial_upper_tail(c.runs_meeting, values.size(), *t.runs_share);
    return c;
  }
  const bool below = t.op == TargetOp::Less || t.op == TargetOp::LessEqual;
  c.met = meets_bound(t, iv.mean);
  if (iv.n >= 2 && iv.stddev > 0) {
    const double margin = below ? t.threshold - iv.mean : iv.mean - t.threshold;
    c.confidence = student_t_cdf(margin / (iv.stddev / std::sqrt(static_cast<double>(iv.n))),
                                 static_cast<double>(iv.n - 1));
  } else {
    c.confidence = c.met ? 1 : 0;
  }
  return c;
}

namespace {

enum class Binding { Quota, Capacity, MaxDuration, Other, NeverWaited };

struct Classified {
  Binding binding = Binding::Other;
  std::string sentence;
};

// What limited one run (or the means) for a target, from its metrics.
Classified classify(const Target& t, const std::map<std::string, double>& m) {
  const auto get = [&](const std::string& name) {
    const auto it = m.find(name);
    return it == m.end() ? std::nan("") : it->second;
  };
  std::string queue;
  if (t.metric.starts_with(std::string(kGroupQueue) + "/")) {
    const auto a = t.metric.find('/');
    queue = t.metric.substr(a + 1, t.metric.find('/', a + 1) - a - 1);
  }
  const auto q = [&](const char* name) {
    return get(fmt::format("{}/{}/{}", kGroupQueue, queue, name));
  };
  // A queue target: what was allocated while that queue had jobs waiting. A cluster target: the
  // whole run.
  const double share = queue.empty() ? std::nan("") : q("quota_share_while_waiting");
  const double util = queue.empty() ? get("utilization_allocated") : q("utilization_while_waiting");
  const double lost_max =
      queue.empty() ? get("gpu_hours_lost_maxDuration") : q("gpu_hours_lost_maxDuration");
  const std::string when =
      queue.empty() ? std::string() : fmt::format(" while queue {} had jobs waiting", queue);
  // The scheduler's own reasons (job_hours_pending_<cause>, docs/outputs.md "Why jobs waited"),
  // when the run has them: the cause most of the waiting was under decides.
  const std::string pre = queue.empty() ? std::string() : fmt::format("{}/{}/", kGroupQueue, queue);
  const auto pend = [&](const char* cause) {
    const double v = get(pre + "job_hours_pending_" + cause);
    return std::isfinite(v) ? v : 0.0;
  };
  const double on_quota = pend("quota");
  const double on_nodes = pend("capacity") + pend("constraints") + pend("preempting");
  const double waited = on_quota + on_nodes + pend("queue_order") + pend("gang_members");
  if (waited > 0 && on_quota >= 0.5 * waited) {
    return {Binding::Quota,
            fmt::format(
                "the quota binds: {} of the job-hours {} waited were on {} quota (the scheduler's "
                "reasons){}; "
                "raise the quota{}, not the capacity",
                format_percent(on_quota / waited),
                queue.empty() ? "jobs" : "queue " + queue + "'s jobs",
                queue.empty() ? "their queue's" : "its",
                std::isfinite(share) ? fmt::format(", with {} of it held", format_percent(share))
                                     : std::string(),
                queue.empty() ? std::string()
                              : fmt::format(" (scheduler.queues[name={}].spec.quota)", queue))};
  }
  if (waited > 0 && on_nodes >= 0.5 * waited) {
    return {Binding::Capacity, fmt::format("capacity binds: {} of the job-hours {} waited found no "
                                           "node with room (the scheduler's "
                                           "reasons); the cluster was {} allocated{}",
                                           format_percent(on_nodes / waited),
                                           queue.empty() ? "jobs" : "queue " + queue + "'s jobs",
                                           format_percent(std::isfinite(util) ? util : 0), when)};
  }
  if (std::isfinite(share) && share >= 0.9) {
    return {
        Binding::Quota,
        fmt::format(
            "the quota binds: queue {} held {} of its GPU quota while its jobs waited, with the "
            "cluster {} "
            "allocated; raise the quota (scheduler.queues[name={}].spec.quota), not the capacity",
            queue, format_percent(share), format_percent(std::isfinite(util) ? util : 0), queue)};
  }
  if (std::isfinite(util) && util >= 0.9) {
    return {
        Binding::Capacity,
        fmt::format("capacity binds: the cluster was {} allocated{}{}", format_percent(util), when,
                    std::isfinite(share)
                        ? fmt::format(" (the queue held {} of its quota)", format_percent(share))
                        : std::string())};
  }
  if (std::isfinite(lost_max) && lost_max > 0) {
    return {Binding::MaxDuration,
            fmt::format("maxDuration binds: {} GPU-hours were cut by the queue's maxDuration",
                        format_count(std::round(lost_max)))};
  }
  if (!queue.empty() && !std::isfinite(util)) {
    return {Binding::NeverWaited,
            fmt::format("queue {} never had jobs waiting: the target is limited by something "
                        "other than waiting for resources (run times, failures)",
                        queue)};
  }
  return {Binding::Other,
          fmt::format("neither quota nor capacity was near its limit (cluster {} allocated{}{}): "
                      "the target is limited "
                      "by something else (job sizes, gang fragmentation, priorities, faults); see "
                      "the per-queue "
                      "figures in the report",
                      format_percent(std::isfinite(util) ? util : 0), when,
                      std::isfinite(share)
                          ? fmt::format(", the queue at {} of its quota", format_percent(share))
                          : std::string())};
}

}  // namespace

std::string describe_check(const Target& t, const TargetCheck& c) {
  if (!c.present) return fmt::format("{}: no run has metric {}", t.text, t.metric);
  const std::string verdict = fmt::format("{}, confidence that it is met {}",
                                          c.met ? "met" : "not met", format_percent(c.confidence));
  const std::string bound =
      fmt::format("{} {}", to_string(t.op), format_metric(t.metric, t.threshold));
  if (t.runs_share) {
    return fmt::format(
        "{} {} in {} of {} run{} ({}, at least {} with 95 % confidence); target: in {} of "
        "runs: {}",
        t.metric, bound, c.runs_meeting, c.n, c.n == 1 ? "" : "s",
        format_percent(static_cast<double>(c.runs_meeting) / static_cast<double>(c.n)),
        format_percent(c.share_lower), format_percent(*t.runs_share), verdict);
  }
  if (is_pooled(t.metric)) {
    return fmt::format("{}: {} over the jobs of {} run{} pooled; target: {}: {}", t.metric,
                       format_metric(t.metric, c.mean), c.n, c.n == 1 ? "" : "s", bound,
                       c.met ? "met" : "not met");
  }
  Interval iv;
  iv.mean = c.mean;
  iv.half_width = c.half_width;
  iv.n = c.n;
  return fmt::format("{}: mean of {} run{} {}; target: the mean {}: {}", t.metric, c.n,
                     c.n == 1 ? "" : "s", metric_interval_text(t.metric, iv), bound, verdict);
}

std::string binding_constraint(const Target& t, const ReplicationSummary& s) {
  // Replication by replication: the runs that miss the target say what held them back (a mean
  // over runs can hide one run where the quota bound).
  std::vector<Classified> missing;
  // A pooled percentile is classified by the runs' own percentile of it.
  std::string metric = t.metric;
  if (const auto at = metric.find("pooled_"); at != std::string::npos) metric.erase(at, 7);
  for (const auto& run : s.runs) {
    const auto it = run.metrics.find(metric);
    if (it == run.metrics.end()) continue;
    if (!meets_bound(t, it->second)) missing.push_back(classify(t, run.metrics));
  }
  if (missing.empty()) {
    std::map<std::string, double> means;
    for (const auto& [name, ms] : s.metrics) means[name] = ms.interval.mean;
    return classify(t, means).sentence;
  }
  // The most frequent cause among the runs that miss, with the first such run's figures.
  std::map<Binding, std::size_t> count;
  for (const auto& c : missing) ++count[c.binding];
  const auto top = std::max_element(count.begin(), count.end(), [](const auto& a, const auto& b) {
    return a.second < b.second || (a.second == b.second && a.first > b.first);
  });
  const auto first = std::find_if(missing.begin(), missing.end(),
                                  [&](const Classified& c) { return c.binding == top->first; });
  const std::size_t n = s.runs.size();
  if (n == 1) return first->sentence;
  // "in 1 of the 1 replications" read as if nothing else was run: say how many ran.
  if (missing.size() == 1)
    return fmt::format("in the one replication of {} that misses the target, {}", n,
                       first->sentence);
  if (top->second == missing.size())
    return fmt::format("in the {} replications of {} that miss the target, {}", missing.size(), n,
                       first->sentence);
  return fmt::format("in {} of the {} replications of {} that miss the target, {}", top->second,
                     missing.size(), n, first->sentence);
}

}  // namespace t9k::analysis
