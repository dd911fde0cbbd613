#include "workload/fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <boost/math/special_functions/gamma.hpp>

#include "kernel/time.hpp"
#include "model/accelerators.hpp"
#include "scenarios/format/serialize.hpp"

namespace t9k::workload {

namespace m = t9k::model;

namespace {

constexpr std::int64_t kUsPerWeek = 7 * kernel::kMicrosPerDay;

std::int64_t floor_mod(std::int64_t a, std::int64_t b) { return ((a % b) + b) % b; }

// Unix time 0 was a Thursday: time since Monday 00:00 UTC of the same week.
std::int64_t time_of_week(std::int64_t unix_us) {
  return floor_mod(unix_us + 3 * kernel::kMicrosPerDay, kUsPerWeek);
}

// How much of [from, to) falls in each hour of the day (UTC), in µs, and in each day of the week.
void exposure(std::int64_t from, std::int64_t to, std::vector<double>& hours,
              std::vector<double>& days) {
  std::int64_t t = from;
  while (t < to) {
    const std::int64_t next =
        std::min(to, t - floor_mod(t, kernel::kMicrosPerHour) + kernel::kMicrosPerHour);
    const auto span = static_cast<double>(next - t);
    hours[static_cast<std::size_t>(floor_mod(t, kernel::kMicrosPerDay) / kernel::kMicrosPerHour)] +=
        span;
    days[static_cast<std::size_t>(time_of_week(t) / kernel::kMicrosPerDay)] += span;
    t = next;
  }
}

std::string number(double x) { return fmt::format("{:.4g}", x); }

std::string multipliers(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + number(v[i]);
  return s + "]";
}

struct Job {
  const m::Job* job;
  std::int64_t created_us;
  std::optional<std::int64_t> run_us;  // finished jobs
};

std::string short_kind(m::JobKind k) {
  switch (k) {
    case m::JobKind::GenericJob:
      return "gj";
    case m::JobKind::PyTorchTrainingJob:
      return "ptj";
    case m::JobKind::DeepSpeedJob:
      return "dsj";
    case m::JobKind::Plugin:
      break;
  }
  return "job";
}

// A lognormal over the run times' natural logs in seconds; one run time: that constant.
std::string run_time(const std::vector<std::int64_t>& runs) {
  std::vector<double> logs;
  for (auto us : runs)
    logs.push_back(std::log(std::max<double>(1.0, static_cast<double>(us) / 1e6)));
  if (logs.size() == 1 ||
      std::all_of(logs.begin(), logs.end(), [&](double x) { return x == logs.front(); })) {
    return fmt::format("{}s", std::max<std::int64_t>(1, (runs.front() + 500000) / 1000000));
  }
  double mean = 0;
  for (double x : logs) mean += x;
  mean /= static_cast<double>(logs.size());
  double var = 0;
  for (double x : logs) var += (x - mean) * (x - mean);
  var /= static_cast<double>(logs.size() - 1);
  return fmt::format("{{lognormal: {{mu: {}, sigma: {}}}}}", number(mean), number(std::sqrt(var)));
}

// The median run time (the lower middle of an even count), as a duration a reader takes in.
std::string median_text(std::vector<std::int64_t> runs) {
  std::sort(runs.begin(), runs.end());
  const double s = static_cast<double>(runs[(runs.size() - 1) / 2]) / 1e6;
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

// The arrival rate's note with its exact 95 % interval (Garwood: from the gamma quantiles of the
// count), and a caution when it rests on few jobs or under a week.
void say_rate(FitResult& out, std::size_t jobs, std::int64_t span, double rate, bool weekly) {
  const double span_h = static_cast<double>(span) / static_cast<double>(kernel::kMicrosPerHour);
  // The exact 95 % interval of a Poisson rate from n arrivals over the span (Garwood).
  const auto n = static_cast<double>(jobs);
  const double rate_lo = boost::math::gamma_p_inv(n, 0.025) / span_h;
  const double rate_hi = boost::math::gamma_p_inv(n + 1, 0.975) / span_h;
  out.notes.push_back(fmt::format(
      "arrivals: {} jobs over {:.1f} h of history: {} jobs per hour on average (95 % interval "
      "{} to {}), by UTC hour of day{}",
      jobs, span_h, number(rate), number(rate_lo), number(rate_hi),
      weekly ? " and day of week" : " (no day-of-week profile: under two weeks of history)"));
  if (jobs < kThinJobs || span < kUsPerWeek) {
    out.cautions.push_back(fmt::format(
        "thin history: new jobs are fitted to {} job{} over {:.1f} h; their rate may be anywhere "
        "from {} to {} per hour (95 %){}; the forecast's new jobs are as uncertain (a longer "
        "export, or --no-arrivals for the present jobs alone)",
        jobs, jobs == 1 ? "" : "s", span_h, number(rate_lo), number(rate_hi),
        span < kUsPerWeek ? ", and under a week says nothing of weekdays against weekends" : ""));
  }
}

}  // namespace

FitResult fit_generator(const scenarios::TraceData& d, std::int64_t at_us, const std::string& name,
                        int indent) {
  std::vector<Job> jobs;
  for (const auto& r : d.records)
    jobs.push_back({&d.objects[static_cast<std::size_t>(r.object)], r.submit_us, r.duration_us});
  for (const auto& u : d.unfinished) {
    if (u.error.empty() && u.created_us <= at_us)
      jobs.push_back({&u.job, u.created_us, std::nullopt});
  }
  std::erase_if(jobs, [&](const Job& j) { return j.created_us > at_us; });
  if (jobs.size() < 2) {
    throw std::runtime_error(fmt::format(
        "found {} job{} created before time zero; a fit needs at least 2 (the export's "
        "history: kubectl get genericjobs,pytorchtrainingjobs,deepspeedjobs -A -o yaml)",
        jobs.size(), jobs.size() == 1 ? "" : "s"));
  }
  std::vector<std::int64_t> all_runs;
  for (const auto& j : jobs) {
    if (j.run_us) all_runs.push_back(*j.run_us);
  }
  if (all_runs.empty()) {
    throw std::runtime_error(
        "found no finished job (Succeeded or Failed with a recorded end): run times cannot be "
        "fitted");
  }
  std::int64_t first = jobs.front().created_us;
  for (const auto& j : jobs) first = std::min(first, j.created_us);
  const std::int64_t span = at_us - first;
  if (span <= 0)
    throw std::runtime_error(
        "found every job created at the same instant: an arrival rate cannot be fitted");

  FitResult out;
  out.jobs = static_cast<std::int64_t>(jobs.size());
  const double rate = static_cast<double>(jobs.size()) /
                      (static_cast<double>(span) / static_cast<double>(kernel::kMicrosPerHour));
  std::vector<double> hour_exposure(24, 0), day_exposure(7, 0), hour_count(24, 0), day_count(7, 0);
  exposure(first, at_us, hour_exposure, day_exposure);
  for (const auto& j : jobs) {
    hour_count[static_cast<std::size_t>(floor_mod(j.created_us, kernel::kMicrosPerDay) /
                                        kernel::kMicrosPerHour)] += 1;
    day_count[static_cast<std::size_t>(time_of_week(j.created_us) / kernel::kMicrosPerDay)] += 1;
  }
  // A multiplier is the hour's own rate over the mean rate; an hour the history never covers
  // gets 1.
  std::vector<double> hours(24, 1), days(7, 1);
  int unseen = 0;
  for (std::size_t h = 0; h < 24; ++h) {
    if (hour_exposure[h] > 0) {
      hours[h] =
          hour_count[h] / (hour_exposure[h] / static_cast<double>(kernel::kMicrosPerHour)) / rate;
    } else {
      ++unseen;
    }
  }
  const bool weekly = span >= 2 * kUsPerWeek;
  if (weekly) {
    for (std::size_t w = 0; w < 7; ++w)
      days[w] =
          day_count[w] / (day_exposure[w] / static_cast<double>(kernel::kMicrosPerHour)) / rate;
  }
  say_rate(out, jobs.size(), span, rate, weekly);
  if (unseen > 0)
    out.notes.push_back(
        fmt::format("{} hour{} of the day the history does not cover arrive at the mean rate",
                    unseen, unseen == 1 ? "" : "s"));

  // The mix: (kind, queue, pods, GPUs per pod), in that order.
  using Key = std::tuple<int, std::string, std::int32_t, std::int64_t>;
  struct Class {
    std::vector<const Job*> jobs;
    std::vector<std::int64_t> runs;
  };
  std::map<Key, Class> classes;
  const model::Accelerators acc;
  for (const auto& j : jobs) {
    const model::JobShape s = model::shape_of(*j.job, acc);
    const std::int32_t pods = s.elastic ? s.expected : s.replicas;
    const auto& sched = m::scheduler_of(*j.job).t9k_scheduler;
    Class& c = classes[Key{static_cast<int>(m::kind_of(*j.job)), sched ? sched->queue : "", pods,
                           s.gpus_per_first_pod}];
    c.jobs.push_back(&j);
    if (j.run_us) c.runs.push_back(*j.run_us);
  }
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  std::string y = fmt::format("{}- name: {}\n", pad, name);
  y += fmt::format("{}  profile:\n{}    rate: {}\n{}    hourOfDay: {}\n", pad, pad, number(rate),
                   pad, multipliers(hours));
  if (weekly) y += fmt::format("{}    dayOfWeek: {}\n", pad, multipliers(days));
  y += fmt::format("{}    weekOffset: {}s\n", pad, time_of_week(at_us) / 1000000);
  y += fmt::format("{}  classes:\n", pad);
  int index = 0;
  std::int64_t pooled = 0;
  for (auto& [key, c] : classes) {
    const auto& [kind, queue, pods, gpus] = key;
    // The latest job of the class is its template (its name is replaced by the class prefix).
    const Job* latest =
        *std::max_element(c.jobs.begin(), c.jobs.end(),
                          [](const Job* a, const Job* b) { return a->created_us < b->created_us; });
    m::Job tpl = *latest->job;
    std::visit([](auto& x) { x.status = {}; }, tpl);
    const std::string cname =
        fmt::format("{}{}-{}x{}", short_kind(static_cast<m::JobKind>(kind)), ++index, pods, gpus);
    y += fmt::format("{}  # {} {}{} of {} pod{} x {} GPU{}, {}: {} finished\n", pad, c.jobs.size(),
                     m::to_string(static_cast<m::JobKind>(kind)), c.jobs.size() == 1 ? "" : "s",
                     pods, pods == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s",
                     queue.empty() ? "no queue" : "queue " + queue, c.runs.size());
    y += fmt::format("{}  - name: {}\n{}    weight: {}\n", pad, cname, pad, c.jobs.size());
    y += fmt::format("{}    manifest: {}", pad,
                     scenarios::to_compact_json(
                         std::visit([](auto& x) -> scenarios::Object { return x; }, tpl)));
    if (y.back() != '\n') y += '\n';
    // Too few finished jobs to fit a spread: the pooled fit over all of them.
    const bool pool = c.runs.size() < kMinClassRuns;
    if (pool) ++pooled;
    const auto& runs = pool ? all_runs : c.runs;
    y += fmt::format("{}    behaviour: {{runTime: {}}}\n", pad, run_time(runs));
    out.class_notes.push_back(fmt::format(
        "class {}: {} of the {} jobs, {}, {} pod{} x {} GPU{}, {}; run time median {} from {} "
        "finished job{}{}",
        cname, c.jobs.size(), jobs.size(), m::to_string(static_cast<m::JobKind>(kind)), pods,
        pods == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s",
        queue.empty() ? "no queue" : "queue " + queue, median_text(runs), runs.size(),
        runs.size() == 1 ? "" : "s",
        pool ? fmt::format(" (pooled: the class has {})", c.runs.size()) : ""));
  }
  out.classes = index;
  out.notes.push_back(fmt::format(
      "mix: {} class{} by kind, queue, pods and GPUs per pod, weighted by their jobs; run times "
      "lognormal over the finished jobs' recorded run times",
      index, index == 1 ? "" : "es"));
  if (pooled > 0) {
    out.cautions.push_back(fmt::format(
        "{} of {} class{} {} under {} finished jobs: {} the run times of all {} finished jobs "
        "(pooled)",
        pooled, index, index == 1 ? "" : "es", pooled == 1 ? "has" : "have", kMinClassRuns,
        pooled == 1 ? "it takes" : "they take", all_runs.size()));
  }
  out.yaml = std::move(y);
  return out;
}

}  // namespace t9k::workload
