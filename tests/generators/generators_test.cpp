// Synthetic workload generators: arrival processes against their configured rates (fixed seed,
// statistical bounds stated per test), bursts and fixed times exactly, the class mix against its
// weights, independence of streams, validation of generated manifests, and the expanded
// workload (t9ksim generate) simulating identically.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/outputs.hpp"
#include "analysis/recorder.hpp"
#include "scenarios/format/explicit.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "scenarios/format/serialize.hpp"
#include "sim/world.hpp"
#include "workload/generator.hpp"
#include "workload/sources.hpp"

using namespace t9k;

namespace {

std::string listing(const std::vector<scenarios::Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds) s += scenarios::format_diagnostic(d) + "\n";
  return s;
}

scenarios::Scenario load(const std::string& yaml) {
  auto r = scenarios::parse_scenario(yaml, "test.yaml");
  INFO(listing(r.diagnostics));
  REQUIRE(r.ok());
  return *r.scenario;
}

scenarios::Scenario load_file(const std::string& path) {
  auto r = scenarios::load_scenario(path);
  INFO(listing(r.diagnostics));
  REQUIRE(r.ok());
  return *r.scenario;
}

const std::string kMixFile = std::string(T9KSIM_SOURCE_DIR) + "/tests/generators/mix.yaml";

// A scenario with one generator: `arrivals` (YAML lines at generator level) and `classes`.
std::string scenario(const std::string& horizon, const std::string& generator) {
  return R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: g}
spec:
  horizon: )" +
         horizon + R"(
  seed: 3
  cluster:
    nodePools: [{name: gpu, count: 2, gpusPerNode: 8, cpu: 64, memory: 512Gi}]
  workload:
    generators:
    - name: g
)" + generator;
}

std::string generic_class(const std::string& name, double weight, const std::string& extra = "") {
  return "      - name: " + name + "\n        weight: " + std::to_string(weight) +
         "\n        manifest: {apiVersion: batch.tensorstack.dev/v1beta1, kind: GenericJob, "
         "metadata: {name: t}, "
         "spec: {replicaSpecs: [{type: worker, template: {spec: {containers: [{name: c, image: i, "
         "resources: {limits: "
         "{nvidia.com/gpu: 1}}}]}}}]}}\n        behaviour: {runTime: {lognormal: {mu: 7, sigma: "
         "1}}}\n" +
         extra;
}

const std::string kTemplate =
    "      manifest: {apiVersion: batch.tensorstack.dev/v1beta1, kind: GenericJob, metadata: "
    "{name: t}, spec: "
    "{replicaSpecs: [{type: worker, template: {spec: {containers: [{name: c, image: i}]}}}]}}\n"
    "      behaviour: {runTime: 1h}\n";

std::vector<scenarios::JobSubmission> jobs_of(const scenarios::Scenario& sc,
                                              std::uint64_t replication = 0) {
  return workload::expand_generators(sc, replication);
}

std::int64_t hours_of(const scenarios::JobSubmission& s) {
  return s.submit_time.time_since_epoch().count() / 3'600'000'000;
}

std::int32_t gpus_of(const model::Job& job) {
  const auto& g = std::get<model::GenericJob>(job);
  return static_cast<std::int32_t>(
      model::get_resource(
          g.spec.replica_specs.at(0).template_->spec.containers.at(0).resources.limits,
          model::kResourceGpu)
          .units_ceil());
}

struct Run {
  analysis::Recorder rec;
  std::uint64_t fingerprint = 0;
  explicit Run(const scenarios::Scenario& sc)
      : rec(kernel::SimTime{sc.horizon}, analysis::Recorder::choose_bucket(sc.horizon)) {}
};

Run simulate(const scenarios::Scenario& sc, std::uint64_t replication) {
  Run run(sc);
  sim::World w(sc, replication, [&](const model::TimedChange& c) { run.rec.on_change(c); });
  w.run();
  run.rec.finish();
  run.fingerprint = w.fingerprint();
  return run;
}

}  // namespace

TEST_CASE("a Poisson rate gives that many arrivals", "[generators]") {
  // 20 jobs per hour over 500 h: N ~ Poisson(10,000). Bound |z| < 4 (false alarm ~6e-5); the
  // seed is fixed, so the outcome is too.
  const auto sc = load(scenario("500h", "      rate: 20\n" + kTemplate));
  const auto jobs = jobs_of(sc);
  const double expected = 20.0 * 500;
  const double z = (static_cast<double>(jobs.size()) - expected) / std::sqrt(expected);
  INFO("arrivals " << jobs.size() << ", z " << z);
  CHECK(std::abs(z) < 4);
  // Inter-arrival gaps are exponential: their mean is 3 minutes within 4 standard errors.
  const double mean_gap_s =
      static_cast<double>(jobs.back().submit_time.time_since_epoch().count()) / 1e6 /
      static_cast<double>(jobs.size());
  CHECK(std::abs(mean_gap_s - 180) < 4 * 180 / std::sqrt(static_cast<double>(jobs.size())));
  // The legacy spelling is the same process: interarrival {exponential: {mean: 3m}}.
  CHECK(
      workload::expand_generators(
          load(scenario("500h", "      interarrival: {exponential: {mean: 3m}}\n" + kTemplate)), 0)
          .size() == jobs.size());
}

TEST_CASE("a daily and weekly profile is followed hour by hour (thinning)", "[generators]") {
  // Base 10 jobs per hour, hour-of-day and day-of-week multipliers with zeros, 12 weeks.
  const std::vector<double> hod = {0,   0,   0.1, 0.1, 0.2, 0.3, 0.5, 0.8, 1.2, 1.6, 2.0, 2.0,
                                   1.5, 1.7, 1.8, 1.8, 1.6, 1.3, 1.0, 0.8, 0.6, 0.5, 0.4, 0.2};
  const std::vector<double> dow = {1, 1, 1, 1, 0.8, 0.3, 0};
  std::string h = "[", d = "[";
  for (double x : hod) h += (h.size() > 1 ? ", " : "") + std::to_string(x);
  for (double x : dow) d += (d.size() > 1 ? ", " : "") + std::to_string(x);
  const auto sc = load(scenario("12w", "      profile: {rate: 10, hourOfDay: " + h +
                                           "], dayOfWeek: " + d + "]}\n" + kTemplate));
  const auto jobs = jobs_of(sc);
  std::vector<double> by_hour(24, 0), by_day(7, 0);
  for (const auto& s : jobs) {
    by_hour[static_cast<std::size_t>(hours_of(s) % 24)] += 1;
    by_day[static_cast<std::size_t>((hours_of(s) / 24) % 7)] += 1;
  }
  double dow_sum = 0;
  for (double x : dow) dow_sum += x;
  double hod_sum = 0;
  for (double x : hod) hod_sum += x;
  // Each bin's count is Poisson with mean rate * multipliers * exposure. Per bin |z| < 4.5 and
  // Pearson's chi-square over the non-empty bins below 60 (23 degrees of freedom at most: the
  // 0.9999 quantile is about 55).
  double chi2 = 0;
  for (std::size_t i = 0; i < 24; ++i) {
    const double e = 10 * hod[i] * dow_sum * 12;
    INFO("hour " << i << ": " << by_hour[i] << " arrivals, expected " << e);
    if (e == 0) {
      CHECK(by_hour[i] == 0);  // thinning never accepts where the rate is zero
      continue;
    }
    const double z = (by_hour[i] - e) / std::sqrt(e);
    CHECK(std::abs(z) < 4.5);
    chi2 += z * z;
  }
  CHECK(chi2 < 60);
  for (std::size_t i = 0; i < 7; ++i) {
    const double e = 10 * dow[i] * hod_sum * 12;
    INFO("day " << i << ": " << by_day[i] << " arrivals, expected " << e);
    if (e == 0) {
      CHECK(by_day[i] == 0);  // Sunday (time zero is Monday 00:00)
    } else {
      CHECK(std::abs((by_day[i] - e) / std::sqrt(e)) < 4.5);
    }
  }
}

TEST_CASE("bursts and fixed times are exact", "[generators]") {
  using kernel::hours;
  const auto at = [](kernel::SimDuration d) { return kernel::SimTime{d}; };
  SECTION("a list of times, unsorted, with a repeat; count truncates") {
    const auto sc = load(scenario("1d", "      times: [2h, 30m, 1h, 1h]\n" + kTemplate));
    const auto jobs = jobs_of(sc);
    REQUIRE(jobs.size() == 4);
    CHECK(jobs[0].submit_time == at(kernel::minutes(30)));
    CHECK(jobs[1].submit_time == at(hours(1)));
    CHECK(jobs[2].submit_time == at(hours(1)));
    CHECK(jobs[3].submit_time == at(hours(2)));
    CHECK(jobs_of(
              load(scenario("1d", "      count: 3\n      times: [2h, 30m, 1h, 1h]\n" + kTemplate)))
              .size() == 3);
    // Times after stop or the horizon are dropped.
    CHECK(jobs_of(load(scenario("90m", "      times: [2h, 30m, 1h, 1h]\n" + kTemplate))).size() ==
          3);
  }
  SECTION("bursts at fixed times") {
    const auto sc = load(scenario("1d", "      bursts: {size: 5, times: [1h, 3h]}\n" + kTemplate));
    const auto jobs = jobs_of(sc);
    REQUIRE(jobs.size() == 10);
    for (std::size_t i = 0; i < 10; ++i) CHECK(jobs[i].submit_time == at(hours(i < 5 ? 1 : 3)));
    std::set<std::string> names;
    for (const auto& s : jobs) names.insert(model::metadata_of(s.job).name.str());
    CHECK(names.size() == 10);
  }
  SECTION("bursts by a Poisson process, sizes drawn") {
    const auto sc = load(scenario(
        "10d", "      bursts: {size: {choice: {values: [3, 12]}}, rate: 0.5}\n" + kTemplate));
    std::map<kernel::SimTime, int> sizes;
    for (const auto& s : jobs_of(sc)) ++sizes[s.submit_time];
    REQUIRE(sizes.size() > 60);  // about 120 bursts in 240 h
    std::set<int> seen;
    for (const auto& [t, n] : sizes) seen.insert(n);
    CHECK(seen == std::set<int>{3, 12});
  }
}

TEST_CASE("the class mix follows the weights", "[generators]") {
  const auto sc =
      load(scenario("1000h", "      rate: 20\n      classes:\n" + generic_class("a", 1) +
                                 generic_class("b", 2) + generic_class("c", 5)));
  const auto jobs = jobs_of(sc);
  std::map<std::string, double> n;
  for (const auto& s : jobs) {
    const std::string name = model::metadata_of(s.job).name.str();
    n[name.substr(0, name.rfind('-'))] += 1;
  }
  const double total = static_cast<double>(jobs.size());
  REQUIRE(total > 15000);
  // Binomial per class: |z| < 4.
  for (const auto& [cls, w] :
       std::vector<std::pair<std::string, double>>{{"g-a", 1}, {"g-b", 2}, {"g-c", 5}}) {
    const double p = w / 8;
    const double z = (n[cls] - total * p) / std::sqrt(total * p * (1 - p));
    INFO(cls << ": " << n[cls] << " of " << total << ", z " << z);
    CHECK(std::abs(z) < 4);
  }
}

TEST_CASE("changing one class's weight moves neither the arrivals nor another class's draws",
          "[generators]") {
  const std::string extra =
      "        gpus: {choice: {values: [1, 2, 4, 8]}}\n        restartLimit: {uniform: {min: 0, "
      "max: 5}}\n";
  const auto one =
      load(scenario("200h", "      rate: 10\n      classes:\n" + generic_class("a", 1, extra) +
                                generic_class("b", 1, extra)));
  const auto two =
      load(scenario("200h", "      rate: 10\n      classes:\n" + generic_class("a", 4, extra) +
                                generic_class("b", 1, extra)));
  const auto x = jobs_of(one);
  const auto y = jobs_of(two);
  REQUIRE(x.size() == y.size());
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(x[i].submit_time == y[i].submit_time);
  // Job g-b-i has the same quantities under both weights, for every i both runs have.
  std::map<std::string, const scenarios::JobSubmission*> by_name;
  for (const auto& s : x) by_name[model::metadata_of(s.job).name.str()] = &s;
  std::size_t compared = 0, moved = 0;
  for (const auto& s : y) {
    const std::string name = model::metadata_of(s.job).name.str();
    const auto it = by_name.find(name);
    if (it == by_name.end()) continue;
    if (it->second->submit_time != s.submit_time) ++moved;
    if (name.rfind("g-b-", 0) != 0) continue;
    ++compared;
    CHECK(gpus_of(s.job) == gpus_of(it->second->job));
    CHECK(std::get<model::GenericJob>(s.job).spec.replica_specs[0].restart_policy.limit ==
          std::get<model::GenericJob>(it->second->job).spec.replica_specs[0].restart_policy.limit);
    CHECK(s.behaviour.run_time->mean() == it->second->behaviour.run_time->mean());
  }
  CHECK(compared > 300);
  CHECK(moved > 0);  // the class choice itself does move which arrival each job gets
}

TEST_CASE("class quantities stay in range and names are unique DNS-1123 labels", "[generators]") {
  const auto sc = load_file(kMixFile);
  for (std::uint64_t rep : {0, 1}) {
    const auto jobs = jobs_of(sc, rep);
    REQUIRE(jobs.size() > 100);
    std::set<std::string> names;
    std::map<std::string, int> kinds;
    for (const auto& s : jobs) {
      const auto& meta = model::metadata_of(s.job);
      CHECK(names.insert(meta.name.str()).second);
      CHECK(meta.name.size() <= 63);
      ++kinds[std::string(model::to_string(model::kind_of(s.job)))];
      // Work is drawn by the generator and fixed: a constant of whole microseconds.
      const auto& work = s.behaviour.run_time ? *s.behaviour.run_time : *s.behaviour.work;
      CHECK(std::holds_alternative<kernel::Constant>(work.seconds.variant()));
      if (const auto* p = std::get_if<model::PyTorchTrainingJob>(&s.job)) {
        const auto& e = *p->spec.elastic;
        CHECK(e.enabled);
        CHECK(e.min_replicas == 1);
        CHECK((e.max_replicas == 2 || e.max_replicas == 4));
        CHECK(e.expected_replicas == 2);
        CHECK(p->spec.run_policy.backoff_limit >= 2);
        CHECK(p->spec.run_policy.backoff_limit <= 8);
        CHECK(p->spec.run_policy.active_deadline_seconds.value_or(0) >= 1);
        const auto gpus =
            model::get_resource(
                p->spec.replica_specs[0].template_->spec.containers[0].resources.limits,
                model::kResourceGpu)
                .units_ceil();
        CHECK((gpus == 4 || gpus == 8));
        CHECK(p->spec.torchrun_config->proc_per_node == std::to_string(gpus));  // followed the GPUs
        CHECK(*s.behaviour.checkpoint_interval >= kernel::minutes(10));
        CHECK(*s.behaviour.checkpoint_interval <= kernel::minutes(40));
      }
      if (const auto* d = std::get_if<model::DeepSpeedJob>(&s.job)) {
        CHECK(d->spec.worker.replicas >= 1);
        CHECK(d->spec.worker.replicas <= 3);
      }
      if (meta.name.view().rfind("daily-notebook-", 0) == 0) {
        const auto gpus = gpus_of(s.job);
        CHECK((gpus == 1 || gpus == 2 || gpus == 4));
        CHECK(s.behaviour.failure.hazard_per_hour >= 0);
        CHECK(s.behaviour.failure.exit_codes.size() == 2);
      }
    }
    CHECK(kinds.size() == 3);
    // The sweep: bursts of 4 or 8 at 2h, 26h (two bursts) and 50h.
    std::map<std::int64_t, int> sweep;
    for (const auto& s : jobs) {
      if (model::metadata_of(s.job).name.view().rfind("sweep-trial-", 0) == 0) ++sweep[hours_of(s)];
    }
    CHECK(sweep.size() == 3);
    CHECK((sweep[2] == 4 || sweep[2] == 8));
    CHECK(sweep[26] >= 8);
  }
  // Replications differ; the same replication is the same jobs.
  CHECK(jobs_of(sc, 0).size() != jobs_of(sc, 1).size());
  const auto a = jobs_of(sc, 1), b = jobs_of(sc, 1);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].job == b[i].job);
    CHECK(a[i].submit_time == b[i].submit_time);
  }
}

TEST_CASE("generated jobs are the same under two policies (common random numbers)",
          "[generators]") {
  auto base = load_file(kMixFile);
  auto other = base;
  other.scheduler.options["preemption"] = "true";
  other.controllers.options["retryableExitCodes"] = "kubeflow";
  const auto a = jobs_of(base, 1), b = jobs_of(other, 1);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].job == b[i].job);
}

TEST_CASE("generated manifests validate and the explicit scenario simulates identically",
          "[generators]") {
  const auto sc = load_file(kMixFile);
  const auto out = std::filesystem::temp_directory_path() / "t9ksim-generators-test";
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  const kernel::RngStreams streams(sc.seed, 1);
  std::vector<scenarios::ExplicitJob> refs;
  for (const auto& g : sc.workload.generators) {
    workload::GeneratorCursor cursor(g, streams, kernel::SimTime{sc.horizon}, sc.default_namespace);
    std::vector<scenarios::Object> objects;
    while (auto s = cursor.next()) {
      refs.push_back(
          {g.name + ".yaml", model::metadata_of(s->job).name.str(), s->submit_time, s->behaviour});
      objects.push_back(scenarios::to_object(s->job));
    }
    REQUIRE(!objects.empty());
    const auto text = scenarios::to_json_stream(objects);
    const auto diags = scenarios::validate_text(text, g.name + ".yaml");
    INFO(listing(diags));
    CHECK_FALSE(scenarios::has_errors(diags));
    std::ofstream(out / (g.name + ".yaml")) << text;
  }
  std::ifstream in(kMixFile);
  const std::string original((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  std::vector<scenarios::Diagnostic> errors;
  const auto text = scenarios::scenario_with_explicit_jobs(
      original, std::string(T9KSIM_SOURCE_DIR) + "/tests/generators", out.string(), refs, errors);
  INFO(listing(errors));
  REQUIRE(errors.empty());
  std::ofstream(out / "scenario.yaml") << text;
  const auto explicit_sc = load_file((out / "scenario.yaml").string());
  CHECK(explicit_sc.workload.generators.empty());
  REQUIRE(explicit_sc.workload.jobs.size() == refs.size());
  // Loaded back: the same objects, times and behaviours (durations to the microsecond).
  const auto lazy = jobs_of(sc, 1);
  REQUIRE(lazy.size() == refs.size());
  std::map<std::string, const scenarios::JobSubmission*> loaded;
  for (const auto& j : explicit_sc.workload.jobs) loaded[model::metadata_of(j.job).name.str()] = &j;
  for (const auto& s : lazy) {
    const auto* e = loaded.at(model::metadata_of(s.job).name.str());
    CHECK(e->job == s.job);
    CHECK(e->submit_time == s.submit_time);
    CHECK(scenarios::to_scenario_json(e->behaviour) == scenarios::to_scenario_json(s.behaviour));
  }
  const auto a = simulate(sc, 1);
  const auto b = simulate(explicit_sc, 1);
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(analysis::jobs_csv(a.rec) == analysis::jobs_csv(b.rec));
  std::filesystem::remove_all(out);
}

TEST_CASE("behaviour and distributions serialise exactly", "[generators]") {
  scenarios::JobBehaviour b;
  b.run_time = scenarios::DurationDistribution::constant(kernel::SimDuration{7'243'123'457});
  b.restart_overhead.seconds = kernel::LogNormal{1.1, 0.30000000000000004};
  b.checkpoint_interval = kernel::SimDuration{1'800'000'001};
  b.failure.hazard_per_hour = 0.1 + 0.2;
  b.failure.exit_codes = {{137, 2.5}};
  b.scaling.model = scenarios::ScalingModel::Table;
  b.scaling.throughput = {{1, 1.0}, {4, 3.3}};
  const std::string yaml =
      scenario("1d",
               "      times: [1h]\n      manifest: {apiVersion: batch.tensorstack.dev/v1beta1, "
               "kind: GenericJob, metadata: {name: t}, spec: {replicaSpecs: [{type: worker, "
               "template: {spec: {containers: [{name: c, image: i}]}}}]}}\n      behaviour: " +
                   scenarios::to_scenario_json(b) + "\n");
  const auto sc = load(yaml);
  const auto& back = sc.workload.generators.at(0).classes.at(0).behaviour;
  CHECK(scenarios::to_scenario_json(back) == scenarios::to_scenario_json(b));
  CHECK(back.run_time->mean() == kernel::SimDuration{7'243'123'457});
  CHECK(*back.checkpoint_interval == kernel::SimDuration{1'800'000'001});
  CHECK(back.failure.hazard_per_hour == 0.1 + 0.2);
  const auto& ln = std::get<kernel::LogNormal>(back.restart_overhead.seconds.variant());
  CHECK(ln.sigma == 0.30000000000000004);
}

TEST_CASE("malformed generators are rejected with the field path", "[generators]") {
  struct Row {
    std::string rule, generator, path, message;
  };
  const std::string tpl = kTemplate;
  const std::vector<Row> rows = {
      {"negative rate", "      rate: -2\n" + tpl, "spec.workload.generators[0].rate",
       "found -2; allowed: a rate > 0 and <= 1e9 (jobs per hour)"},
      {"two arrival processes", "      rate: 2\n      times: [1h]\n" + tpl,
       "spec.workload.generators[0]",
       "found arrival processes rate, times; allowed: exactly one of interarrival, rate, profile, "
       "bursts, times"},
      {"hourOfDay needs 24 values", "      profile: {rate: 1, hourOfDay: [1, 2]}\n" + tpl,
       "spec.workload.generators[0].profile.hourOfDay",
       "found 2 values; allowed: a list of exactly 24 multipliers >= 0 (hours 0..23 of the day, "
       "time zero is Monday 00:00)"},
      {"dayOfWeek not all zero",
       "      profile: {rate: 1, dayOfWeek: [0, 0, 0, 0, 0, 0, 0]}\n" + tpl,
       "spec.workload.generators[0].profile.dayOfWeek",
       "found only zeros; allowed: at least one multiplier > 0"},
      {"negative multiplier", "      profile: {rate: 1, dayOfWeek: [1, 1, 1, 1, 1, 1, -1]}\n" + tpl,
       "spec.workload.generators[0].profile.dayOfWeek[6]", ""},
      {"burst size at least 1", "      bursts: {size: 0, rate: 1}\n" + tpl,
       "spec.workload.generators[0].bursts.size", ""},
      {"bursts need a process", "      bursts: {size: 3}\n" + tpl,
       "spec.workload.generators[0].bursts",
       "found no arrival process; allowed: exactly one of interarrival, rate, profile, times"},
      {"class weights sum to zero",
       "      rate: 1\n      classes:\n" + generic_class("a", 0) + generic_class("b", 0),
       "spec.workload.generators[0].classes",
       "found class weights summing to 0; allowed: weights >= 0 with a positive sum"},
      {"choice weights sum to zero",
       "      rate: 1\n      classes:\n" +
           generic_class("a", 1, "        gpus: {choice: {values: [1, 2], weights: [0, 0]}}\n"),
       "spec.workload.generators[0].classes[0].gpus.choice.weights",
       "found weights summing to 0; allowed: weights >= 0 with a positive, finite sum"},
      {"one weight per value",
       "      rate: 1\n      classes:\n" +
           generic_class("a", 1, "        gpus: {choice: {values: [1, 2], weights: [1]}}\n"),
       "spec.workload.generators[0].classes[0].gpus.choice.weights",
       "found 1 weights for 2 values; allowed: one weight per value"},
      {"uniform min > max",
       "      rate: 1\n      classes:\n" +
           generic_class("a", 1, "        restartLimit: {uniform: {min: 5, max: 1}}\n"),
       "spec.workload.generators[0].classes[0].restartLimit.uniform", ""},
      {"elastic min > max",
       "      rate: 1\n      classes:\n      - name: a\n        manifest: {apiVersion: "
       "batch.tensorstack.dev/v1beta1, kind: PyTorchTrainingJob, metadata: {name: t}, spec: "
       "{replicaSpecs: [{type: worker, template: {spec: {containers: [{name: c, image: i}]}}}]}}\n "
       "       behaviour: {runTime: 1h}\n        elastic: {minReplicas: 4, maxReplicas: {choice: "
       "{values: [2, 3]}}}\n",
       "spec.workload.generators[0].classes[0].elastic",
       "found minReplicas >= 4 > maxReplicas <= 3; allowed: minReplicas <= maxReplicas"},
      {"elastic not for GenericJob",
       "      rate: 1\n      classes:\n" +
           generic_class("a", 1, "        elastic: {maxReplicas: 2}\n"),
       "spec.workload.generators[0].classes[0].elastic",
       "found elastic with a GenericJob template; allowed: elastic only for PyTorchTrainingJob and "
       "DeepSpeedJob (spec §4.3)"},
      {"GPUs are whole and in range",
       "      rate: 1\n      classes:\n" +
           generic_class("a", 1, "        gpus: {choice: {values: [1, 2000000]}}\n"),
       "spec.workload.generators[0].classes[0].gpus.choice.values[1]", ""},
      {"GenericJob has no ExitCode",
       "      rate: 1\n      classes:\n" +
           generic_class("a", 1, "        restartPolicy: ExitCode\n"),
       "spec.workload.generators[0].classes[0].restartPolicy",
       "found \"ExitCode\"; allowed: Always, OnFailure, Never"},
      {"backoffLimit not for GenericJob",
       "      rate: 1\n      classes:\n" + generic_class("a", 1, "        backoffLimit: 3\n"),
       "spec.workload.generators[0].classes[0].backoffLimit",
       "found backoffLimit with a GenericJob template; allowed: only for PyTorchTrainingJob and "
       "DeepSpeedJob (runPolicy)"},
      {"cleanUpPolicy values",
       "      rate: 1\n      classes:\n" +
           generic_class("a", 1, "        cleanUpPolicy: {choice: {values: [None, Everything]}}\n"),
       "spec.workload.generators[0].classes[0].cleanUpPolicy.choice.values[1]", ""},
      {"unknown template kind",
       "      rate: 1\n      classes:\n      - name: a\n        manifest: {apiVersion: "
       "batch.tensorstack.dev/v1beta1, kind: MPIJob, metadata: {name: t}, spec: {}}\n        "
       "behaviour: {runTime: 1h}\n",
       "spec.workload.generators[0].classes[0].manifest.kind", ""},
      {"a template or classes", "      rate: 1\n      behaviour: {runTime: 1h}\n",
       "spec.workload.generators[0]",
       "found neither a template nor classes; allowed: exactly one of manifest or path (one job "
       "template) or classes (a weighted mix)"},
      {"class names are labels", "      rate: 1\n      classes:\n" + generic_class("Big_Jobs", 1),
       "spec.workload.generators[0].classes[0].name",
       "found \"Big_Jobs\"; allowed: a DNS-1123 label (job names are <generator>-<class>-<i>)"},
      {"replicaType exists",
       "      rate: 1\n      classes:\n" +
           generic_class("a", 1, "        replicaType: master\n        replicas: 2\n"),
       "spec.workload.generators[0].classes[0].replicaType",
       "found \"master\"; allowed: a replica type of the template (worker)"},
      {"unknown class field",
       "      rate: 1\n      classes:\n" + generic_class("a", 1, "        gpu: 2\n"),
       "spec.workload.generators[0].classes[0].gpu", ""},
  };
  for (const auto& row : rows) {
    INFO("rule: " << row.rule);
    const auto r = scenarios::parse_scenario(scenario("1d", row.generator), "s.yaml");
    INFO("diagnostics:\n" << listing(r.diagnostics));
    CHECK_FALSE(r.ok());
    std::vector<scenarios::Diagnostic> errors;
    for (const auto& d : r.diagnostics) {
      if (d.severity == scenarios::Severity::Error) errors.push_back(d);
    }
    REQUIRE(!errors.empty());
    CHECK(errors[0].path == row.path);
    if (!row.message.empty()) CHECK(errors[0].message == row.message);
  }
}

TEST_CASE("generated job names cannot collide", "[generators]") {
  const std::string two = "      rate: 1\n      classes:\n" + generic_class("b-c", 1) +
                          "    - name: g-b\n      rate: 1\n      classes:\n" +
                          generic_class("c", 1);
  const auto r = scenarios::parse_scenario(scenario("1d", two), "s.yaml");
  INFO(listing(r.diagnostics));
  CHECK_FALSE(r.ok());
  bool found = false;
  for (const auto& d : r.diagnostics)
    found = found || d.message.find("also used by generator \"g\"") != std::string::npos;
  CHECK(found);
}

TEST_CASE("a replicas distribution reaching past 10,000 is reported, not clamped silently",
          "[generators]") {
  auto warned = [](const std::string& replicas) {
    const auto r = scenarios::parse_scenario(
        scenario("1d", "      rate: 1\n      classes:\n" +
                           generic_class("a", 1, "        replicas: " + replicas + "\n")),
        "test.yaml");
    INFO(listing(r.diagnostics));
    REQUIRE(r.ok());
    for (const auto& d : r.diagnostics)
      if (d.severity == scenarios::Severity::Warning &&
          d.path.find("replicas") != std::string::npos)
        return d.message;
    return std::string();
  };
  CHECK(warned("{uniform: {min: 1, max: 1e300}}") ==
        "the distribution reaches 1e+300, above 10000; every draw above 10000 is taken as 10000");
  CHECK(warned("{exponential: {mean: 20000}}") ==
        "the distribution's mean is 20000, above 10000; every draw above 10000 is taken as 10000");
  CHECK(warned("{uniform: {min: 1, max: 8}}").empty());
  CHECK(warned("{lognormal: {mu: 1, sigma: 1}}").empty());
}

TEST_CASE("the expected jobs of a generator match what it draws (the --max-jobs budget)",
          "[generators][budget]") {
  // docs/reliability.md "Scenario budgets": the estimate is the mean; the drawn count is within
  // 5 standard deviations of a Poisson count (exact for times, bursts of fixed size and counts).
  struct Row {
    const char* what;
    std::string horizon;
    std::string arrivals;
    double expected;
    bool exact;
  };
  const std::vector<Row> rows = {
      {"Poisson rate", "500h", "      rate: 20\n", 10000, false},
      {"interarrival mean", "500h", "      interarrival: {exponential: {mean: 3m}}\n", 10000,
       false},
      {"profile averages the day", "28d",
       "      profile: {rate: 10, hourOfDay: [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, "
       "2, 0, 0, 0, 0, 0, 0]}\n",
       10 * 0.75 * 28 * 24, false},
      {"start and stop window", "100h", "      start: 10h\n      stop: 60h\n      rate: 20\n", 1000,
       false},
      {"listed times inside the horizon", "90m", "      times: [2h, 30m, 1h, 1h]\n", 3, true},
      {"bursts at times", "1d", "      bursts: {size: 5, times: [1h, 3h]}\n", 10, true},
      {"count caps", "500h", "      count: 7\n      rate: 20\n", 7, true},
  };
  for (const auto& row : rows) {
    INFO(row.what);
    const auto sc = load(scenario(row.horizon, row.arrivals + kTemplate));
    const auto est = scenarios::estimate_jobs(sc);
    REQUIRE(est.sources.size() == 1);
    CHECK(est.sources[0].path == "spec.workload.generators[0]");
    CHECK(est.total == Approx(row.expected).epsilon(1e-9));
    const auto drawn = static_cast<double>(jobs_of(sc).size());
    if (row.exact) {
      CHECK(drawn == row.expected);
    } else {
      CHECK(std::abs(drawn - row.expected) < 5 * std::sqrt(row.expected));
    }
  }
}

TEST_CASE("a scenario above --max-jobs is refused at load, naming the generator",
          "[generators][budget]") {
  const std::string text = scenario("500h", "      rate: 20\n" + kTemplate);
  scenarios::LoadOptions lo;
  lo.max_jobs = 9999;
  const auto refused = scenarios::parse_scenario(text, "test.yaml", lo);
  REQUIRE_FALSE(refused.ok());
  const auto all = listing(refused.diagnostics);
  CHECK(all.find("spec.workload.generators[0]") != std::string::npos);
  CHECK(all.find("about 1e+04 jobs per replication") != std::string::npos);
  CHECK(all.find("at most 9999 (--max-jobs)") != std::string::npos);
  lo.max_jobs = 10000;
  CHECK(scenarios::parse_scenario(text, "test.yaml", lo).ok());
  lo.max_jobs = 0;  // no budget
  CHECK(scenarios::parse_scenario(text, "test.yaml", lo).ok());
}
