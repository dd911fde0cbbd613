// spec.initialState (docs/forecast.md).
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "scenarios/format/traces.hpp"

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kInitialState[] = {"fromExport", "at", "remaining", "queuedRunTime"};
constexpr std::string_view kRemaining[] = {"fractionOfElapsed", "distribution", "activeDeadline"};

}  // namespace

// spec.initialState (docs/forecast.md): the export's unfinished jobs at time zero.
void ScenarioDecoder::initial_state(const Val& v, Scenario& sc) {
  if (!v.present()) return;
  MapReader m(r_, v, kInitialState);
  if (!m.ok()) return;
  InitialState st;
  const Val from = m.get("fromExport");
  if (!require(r_, from)) return;
  const auto rel = read_string(r_, from);
  if (!rel) return;
  if (const Val at = m.get("at"); at.present()) {
    const auto text =
        at.node.IsScalar() ? std::optional<std::string>(at.node.Scalar()) : std::nullopt;
    if (const auto us = text ? parse_trace_time(*text) : std::nullopt) {
      st.at_us = *us;
    } else {
      r_.error(at.mark, at.path,
               fmt::format("found {}; allowed: the export's time, RFC 3339 (2024-05-02T09:00:00Z), "
                           "\"YYYY-MM-DD HH:MM:SS\" (UTC) or Unix seconds",
                           describe(at.node)));
    }
  }
  if (const Val rem = m.get("remaining"); rem.present()) {
    MapReader rm(r_, rem, kRemaining);
    if (rm.ok()) {
      const Val f = rm.get("fractionOfElapsed"), d = rm.get("distribution");
      if (f.present() && d.present()) {
        r_.error(d.mark, d.path,
                 "found both fractionOfElapsed and distribution; allowed: one of them");
      }
      if (auto x = read_double(r_, f, 0, 1e6)) st.remaining.fraction_of_elapsed = *x;
      st.remaining.distribution = duration_dist(r_, d);
      if (auto x = read_bool(r_, rm.get("activeDeadline"))) st.remaining.active_deadline = *x;
    }
  }
  st.queued_run_time = duration_dist(r_, m.get("queuedRunTime"));
  if (r_.has_error_under(v.path)) return;
  const auto path =
      input_file(from, *rel, "a kubectl export of the cluster's jobs and pods (docs/forecast.md)");
  if (!path) return;
  st.from_export = *path;
  st.data = load_initial_state(st.from_export, st.at_us, out_);
  if (!st.data) {
    r_.error(from.mark, from.path, "found errors in the export (reported above)");
    return;
  }
  const bool queued = std::any_of(st.data->jobs.begin(), st.data->jobs.end(),
                                  [](const InitialJob& j) { return !j.running; });
  if (queued && !st.queued_run_time && st.data->finished_run_us.empty()) {
    r_.error(v.mark, v.path + ".queuedRunTime",
             "missing queuedRunTime: the export has waiting jobs and no finished job whose "
             "median run time they could "
             "take; allowed: a duration or distribution, e.g. 2h");
    return;
  }
  for (const auto& n : st.data->notes) {
    if (n.severity == Severity::Warning)
      r_.warning(from.mark, from.path, n.message);
    else
      r_.note(from.mark, from.path, n.message);
  }
  if (queued && !st.queued_run_time) {
    auto runs = st.data->finished_run_us;
    std::sort(runs.begin(), runs.end());
    // The median (the lower middle of an even count: a run time the export recorded).
    const std::int64_t median = runs[(runs.size() - 1) / 2];
    r_.note(from.mark, from.path,
            fmt::format(
                "waiting jobs run {} s each, the median run time of the export's {} finished job{} "
                "(set queuedRunTime to choose)",
                median / 1000000, runs.size(), runs.size() == 1 ? "" : "s"));
    st.queued_run_time = DurationDistribution::constant(SimDuration{median});
  }
  const bool running = std::any_of(st.data->jobs.begin(), st.data->jobs.end(),
                                   [](const InitialJob& j) { return j.running; });
  if (running) {
    const auto& rm = st.remaining;
    std::string how =
        rm.distribution
            ? "for a draw of remaining.distribution"
            : fmt::format("for {} x the time they have run (remaining.fractionOfElapsed)",
                          rm.fraction_of_elapsed);
    if (rm.active_deadline) how = "until their activeDeadlineSeconds where set, otherwise " + how;
    r_.note(from.mark, from.path,
            "running jobs run on " + how + "; a deadline counts from the job's recorded start");
  }
  sc.initial_state = std::move(st);
}

}  // namespace t9k::scenarios::detail
