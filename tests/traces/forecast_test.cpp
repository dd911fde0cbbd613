// spec.initialState and the fitted generator (docs/forecast.md) on the shipped export fixture
// (tests/traces/fixtures/t9k-cluster-export.yaml): at 2024-05-02T09:00:00Z, bert-large (8 GPUs,
// its pod on gpu-node-0 since 08:00:25) runs and queued-eval (2 x 8 GPUs, queue team-a with a
// 16-GPU quota) waits; preprocess, mnist-ddp and llm-sft finished (40 min, 90.5 min, 47.5 min).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "scenarios/format/load.hpp"
#include "scenarios/format/traces.hpp"
#include "sim/world.hpp"
#include "support.hpp"
#include "workload/fit.hpp"

using namespace t9k;
using namespace t9k::tracetest;

namespace {

const fs::path kFixture =
    fs::path(T9KSIM_SOURCE_DIR) / "tests/traces/fixtures/t9k-cluster-export.yaml";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What loading assumed is said as a note (docs/forecast.md: notes apart from warnings).
bool has_note(const scenarios::ScenarioResult& r, const std::string& part) {
  return std::any_of(
      r.diagnostics.begin(), r.diagnostics.end(), [&](const scenarios::Diagnostic& d) {
        return d.severity == scenarios::Severity::Note && d.message.find(part) != std::string::npos;
      });
}

std::string messages(const scenarios::ScenarioResult& r) {
  std::string s;
  for (const auto& d : r.diagnostics) s += scenarios::format_diagnostic(d) + "\n";
  return s;
}

// Zero latencies, so times are exactly the model's.
std::string scenario(const std::string& initial_state, const std::string& extra = "") {
  return fmt::format(R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {{name: forecast}}
spec:
  horizon: 2d
  cluster: {{fromExport: export.yaml}}
  controllers: {{reconcileLatency: 0s}}
  kubelet: {{podStartLatency: 0s, podStopLatency: 0s}}
  scheduler: {{name: t9k, options: {{schedulingLatency: 0s}}}}
  initialState: {}
{})",
                     initial_state, extra);
}

struct Observed {
  std::map<std::string, std::string> node_of;  // pod -> node of its first binding
  std::map<std::string, double> bound_s;       // pod -> first binding
  std::map<std::string, double> running_s;     // pod -> first Running
  std::map<std::string, double> released_s;    // pod -> release
  std::vector<std::string> notes;
};

Observed observe(const scenarios::Scenario& sc) {
  Observed o;
  sim::World w(sc, 0, [&](const model::TimedChange& c) {
    const double t = static_cast<double>(c.time.time_since_epoch().count()) / 1e6;
    if (const auto* b = std::get_if<model::PodBound>(&c.change)) {
      o.node_of.emplace(b->pod, b->node);
      o.bound_s.emplace(b->pod, t);
    } else if (const auto* r = std::get_if<model::PodRunning>(&c.change)) {
      o.running_s.emplace(r->pod, t);
    } else if (const auto* x = std::get_if<model::PodReleased>(&c.change)) {
      o.released_s.emplace(x->pod, t);
    }
  });
  w.run();
  o.notes = w.notes();
  return o;
}

}  // namespace

TEST_CASE("initial state from an export: what is read, with every assumption said") {
  const auto dir = temp_dir("initial-state");
  fs::copy_file(kFixture, dir / "export.yaml");
  const auto r = parse(scenario("{fromExport: export.yaml}"), dir.string());
  INFO(messages(r));
  REQUIRE(r.ok());
  const auto& st = *r.scenario->initial_state;
  REQUIRE(st.data);
  CHECK(scenarios::format_trace_time(st.data->at_us) ==
        "2024-05-02T09:00:00Z");  // the latest time recorded
  REQUIRE(st.data->jobs.size() == 2);
  const auto& running = st.data->jobs[0];
  CHECK(running.running);
  CHECK(model::metadata_of(running.job).name == "bert-large");
  CHECK(running.pins ==
        std::vector<std::pair<std::string, std::string>>{{"bert-large-worker-0", "gpu-node-0"}});
  CHECK(running.elapsed_us ==
        (59 * 60 + 35) * 1000000LL);  // 08:00:25 (its pod's startTime) to 09:00:00
  CHECK(running.elapsed_from == "pods");
  CHECK_FALSE(st.data->jobs[1].running);
  CHECK(model::metadata_of(st.data->jobs[1].job).name == "queued-eval");
  CHECK(st.data->finished_run_us.size() == 3);
  CHECK(has_note(r,
                 "time zero is 2024-05-02T09:00:00Z (the latest time the export records): 1 "
                 "running job placed on "
                 "their recorded nodes, 1 waiting job queued in creation order"));
  // No queuedRunTime: the median of 2400 s, 2850 s and 5430 s.
  CHECK(has_note(
      r, "waiting jobs run 2850 s each, the median run time of the export's 3 finished jobs"));
  CHECK(has_note(
      r, "running jobs run on for 1 x the time they have run (remaining.fractionOfElapsed)"));
  // A forecast needs no workload of its own.
  CHECK(r.scenario->workload.jobs.empty());

  // `at` earlier than queued-eval's creation leaves it out, and bert-large has run less.
  const auto early =
      parse(scenario("{fromExport: export.yaml, at: \"2024-05-02T08:30:25Z\"}"), dir.string());
  INFO(messages(early));
  REQUIRE(early.ok());
  REQUIRE(early.scenario->initial_state->data->jobs.size() == 1);
  CHECK(early.scenario->initial_state->data->jobs[0].elapsed_us == 30 * 60 * 1000000LL);
  CHECK(has_note(early, "1 job created after time zero left out: queued-eval"));
}

TEST_CASE("initial state: bad fields are refused at their path") {
  const auto dir = temp_dir("initial-state-errors");
  fs::copy_file(kFixture, dir / "export.yaml");
  const auto fails = [&](const std::string& st, const std::string& path, const std::string& part) {
    const auto r = parse(scenario(st), dir.string());
    INFO(messages(r));
    CHECK_FALSE(r.ok());
    CHECK(std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                      [&](const scenarios::Diagnostic& d) {
                        return d.severity == scenarios::Severity::Error && d.path == path &&
                               d.message.find(part) != std::string::npos;
                      }));
  };
  fails("{}", "spec.initialState.fromExport", "missing");
  fails("{fromExport: nowhere.yaml}", "spec.initialState.fromExport", "which is not a file");
  fails("{fromExport: export.yaml, at: yesterday}", "spec.initialState.at",
        "allowed: the export's time");
  fails("{fromExport: export.yaml, remaining: {fractionOfElapsed: -1}}",
        "spec.initialState.remaining.fractionOfElapsed", "");
  fails("{fromExport: export.yaml, remaining: {fractionOfElapsed: 1, distribution: 1h}}",
        "spec.initialState.remaining.distribution", "found both");
  fails("{fromExport: export.yaml, remains: 1}", "spec.initialState.remains", "");

  // Waiting jobs and no finished job to take a run time from: queuedRunTime is required.
  std::string text = read_text(kFixture);
  for (const char* phase : {"phase: Succeeded", "phase: Failed"}) {
    for (auto at = text.find(phase); at != std::string::npos; at = text.find(phase))
      text.replace(at, std::string(phase).size(), "phase: Running");
  }
  // Without their end conditions they are unfinished: strip the Completed/Failed conditions.
  std::string kept;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("type: Completed") != std::string::npos ||
        line.find("type: Failed, status: \"True\"") != std::string::npos)
      continue;
    if (line.find("terminated:") != std::string::npos) continue;
    kept += line + "\n";
  }
  write(dir / "unfinished.yaml", kept);
  const auto none = parse(scenario("{fromExport: unfinished.yaml}"), dir.string());
  INFO(messages(none));
  CHECK_FALSE(none.ok());
  CHECK(std::any_of(none.diagnostics.begin(), none.diagnostics.end(),
                    [](const scenarios::Diagnostic& d) {
                      return d.path == "spec.initialState.queuedRunTime" &&
                             d.message.find("no finished job") != std::string::npos;
                    }));
  CHECK(parse(scenario("{fromExport: unfinished.yaml, queuedRunTime: 1h}"), dir.string()).ok());
}

TEST_CASE("initial state run: running jobs stay on their nodes, waiting jobs follow in order") {
  const auto dir = temp_dir("initial-state-run");
  fs::copy_file(kFixture, dir / "export.yaml");
  const auto sc = load(scenario("{fromExport: export.yaml, queuedRunTime: 1h}"), dir.string());
  const auto o = observe(sc);
  CHECK(o.notes.empty());
  // bert-large's pod is bound where the export saw it, at time zero, and runs at once.
  CHECK(o.node_of.at("demo/bert-large-worker-0") == "gpu-node-0");
  CHECK(o.bound_s.at("demo/bert-large-worker-0") == 0.0);
  CHECK(o.running_s.at("demo/bert-large-worker-0") == 0.0);
  // remaining = 1 x elapsed = 3575 s.
  CHECK(o.released_s.at("demo/bert-large-worker-0") == 3575.0);
  // queued-eval needs both nodes (and the queue's whole quota): it starts when bert-large ends.
  CHECK(o.bound_s.at("demo/queued-eval-worker-0") == 3575.0);
  CHECK(o.released_s.at("demo/queued-eval-worker-0") == 3575.0 + 3600.0);

  // remaining.fractionOfElapsed scales it; activeDeadline without a deadline falls back to it.
  const auto half = observe(load(
      scenario("{fromExport: export.yaml, queuedRunTime: 1h, remaining: {fractionOfElapsed: 0.5, "
               "activeDeadline: true}}"),
      dir.string()));
  CHECK(half.released_s.at("demo/bert-large-worker-0") == 1787.5);

  // A deadline counts from the job's recorded start: with activeDeadlineSeconds 3600, 25 s are
  // left.
  std::string text = read_text(kFixture);
  const std::string anchor =
      "    scheduler:\n      t9kScheduler: {queue: team-a}\n    replicaSpecs:\n    - type: "
      "worker\n      replicas: 1\n";
  const auto at = text.find(anchor);
  REQUIRE(at != std::string::npos);
  text.insert(at, "    runPolicy: {activeDeadlineSeconds: 3600}\n");
  write(dir / "deadline.yaml", text);
  const auto dl = observe(load(
      scenario("{fromExport: deadline.yaml, queuedRunTime: 1h, remaining: {activeDeadline: true}}"),
      dir.string()));
  CHECK(dl.released_s.at("demo/bert-large-worker-0") == 25.0);

  // A recorded node that cannot take the pod (cordoned here): the scheduler places the job, and
  // the run says so.
  const auto cordoned =
      observe(load(scenario("{fromExport: export.yaml, queuedRunTime: 1h}",
                            "  operations:\n  - {at: 0s, action: cordonNode, node: gpu-node-0}\n"),
                   dir.string()));
  CHECK(cordoned.node_of.at("demo/bert-large-worker-0") == "gpu-node-1");
  REQUIRE(cordoned.notes.size() == 1);
  CHECK(cordoned.notes[0] ==
        "demo/bert-large was not placed as recorded (node gpu-node-0 of pod bert-large-worker-0 is "
        "cordoned): the scheduler placed it");
}

TEST_CASE("fit: arrivals by hour of day and the job mix from an export's history") {
  scenarios::TraceEntry e;
  e.name = "export";
  e.format = scenarios::TraceFormat::K8sExport;
  e.path = kFixture.string();
  std::vector<scenarios::Diagnostic> diags;
  const auto data = scenarios::load_trace(e, false, "<test>", "export", diags);
  REQUIRE(data);
  const auto fit = workload::fit_generator(*data, data->latest_us, "arrivals", 0);
  CHECK(fit.jobs == 5);
  CHECK(fit.classes == 5);  // no two jobs share kind, queue, pods and GPUs per pod
  // 5 jobs in the 23 h from 2024-05-01T10:00Z to 2024-05-02T09:00Z.
  CHECK(fit.yaml.find("    rate: 0.2174\n") != std::string::npos);
  // Created at 08, 10, 11, 12 (UTC) and 09:00 (hour 9 has no exposure before time zero: mean rate).
  CHECK(fit.yaml.find("hourOfDay: [0, 0, 0, 0, 0, 0, 0, 0, 4.6, 1, 4.6, 4.6, 4.6, 0,") !=
        std::string::npos);
  // 2024-05-02 was a Thursday: 3 days and 9 hours after Monday 00:00.
  CHECK(fit.yaml.find("weekOffset: 291600s\n") != std::string::npos);
  CHECK(fit.yaml.find("- name: ptj4-2x8\n    weight: 1\n") != std::string::npos);
  // Every class has under 3 finished jobs (mnist-ddp's one ran 11:00:10 to 12:30:40): each takes
  // the pooled fit over the 3 finished jobs (2400 s, 2850 s, 5430 s), not a constant from one.
  CHECK(fit.yaml.find("behaviour: {runTime: 5430s}") == std::string::npos);
  CHECK(fit.yaml.find("behaviour: {runTime: {lognormal: {mu: 8.113, sigma: 0.4304}}}") !=
        std::string::npos);
  // The thin evidence said with its sample sizes: 5 jobs in 23 h, the rate's exact 95 % interval.
  REQUIRE(fit.cautions.size() == 2);
  CHECK(
      fit.cautions[0].starts_with("thin history: new jobs are fitted to 5 jobs over 23.0 h; "
                                  "their rate may be anywhere from 0.07059 to 0.5073 per hour"));
  CHECK(fit.cautions[1] ==
        "5 of 5 classes have under 3 finished jobs: they take the run times of all 3 finished "
        "jobs (pooled)");
  REQUIRE(fit.class_notes.size() == 5);
  CHECK(fit.class_notes[3] ==
        "class ptj4-2x8: 1 of the 5 jobs, PyTorchTrainingJob, 2 pods x 8 GPUs, queue team-a; run "
        "time median 48 min from 3 finished jobs (pooled: the class has 1)");
  // The fitted entry loads as a generator and its jobs arrive.
  const auto dir = temp_dir("fit");
  const std::string text =
      "apiVersion: t9ksim/v1\nkind: Scenario\nmetadata: {name: fitted}\nspec:\n  horizon: 30d\n"
      "  cluster: {nodePools: [{name: a, count: 4, gpusPerNode: 8, cpu: 128, memory: 1Ti}]}\n"
      "  scheduler:\n    name: t9k\n    queues:\n    - manifest: {apiVersion: "
      "scheduler.tensorstack.dev/v1beta1, kind: Queue, "
      "metadata: {name: team-a}, spec: {}}\n  workload:\n    generators:\n" +
      workload::fit_generator(*data, data->latest_us, "arrivals", 4).yaml;
  const auto r = parse(text, dir.string());
  INFO(messages(r) << text);
  REQUIRE(r.ok());
  const auto run = simulate(*r.scenario);
  const auto m = run.rec.metrics();
  // A day brings 0.2174 x (4 x 4.6 + 1) = 4.2 jobs (hour 9 at the mean rate), 30 days 127: a
  // Poisson count, inside 3.5 standard deviations.
  CHECK(m.at("jobs_submitted") > 127 - 40);
  CHECK(m.at("jobs_submitted") < 127 + 40);

  // Too little history is refused with the reason.
  scenarios::TraceData one = *data;
  one.records.resize(1);
  one.unfinished.clear();
  CHECK_THROWS_WITH(workload::fit_generator(one, data->latest_us, "x", 0),
                    Catch::Contains("a fit needs at least 2"));
}
