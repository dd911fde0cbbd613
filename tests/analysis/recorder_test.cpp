// The recorder on a hand-written change feed: milli-GPU accounting (shared GPUs), 128-bit areas,
// and how jobs.csv and events.jsonl print fractional GPUs.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis/outputs.hpp"
#include "analysis/recorder.hpp"
#include "kernel/time.hpp"
#include "model/change.hpp"

using namespace t9k;
using analysis::Int128;
using analysis::Recorder;
using kernel::SimDuration;
using kernel::SimTime;

namespace {

constexpr std::int64_t kHourUs = 3600LL * 1000000;

model::TimedChange at(SimDuration t, model::Change c) {
  return model::TimedChange{SimTime{t}, std::move(c)};
}

model::JobSubmitted submitted(model::JobId id, std::string name, std::int64_t gpu_milli) {
  model::JobSubmitted s{};
  s.job = id;
  s.name = std::move(name);
  s.kind = model::JobKind::GenericJob;
  s.queue = "q";
  s.replicas = 1;
  s.gpu_milli = gpu_milli;
  s.ideal_run_us = kHourUs;
  return s;
}

model::JobPhaseChanged phase(model::JobId id, model::JobPhase p) {
  model::JobPhaseChanged c{};
  c.job = id;
  c.phase = p;
  return c;
}

model::PodBound bound(model::JobId id, std::string pod, std::int64_t gpu_milli) {
  model::PodBound b{};
  b.job = id;
  b.pod = std::move(pod);
  b.node = "n0";
  b.gpu_milli = gpu_milli;
  b.queue = "q";
  return b;
}

// `bound_at`: when its PodBound was (the store's PodReleased carries it).
model::PodReleased released(model::JobId id, std::string pod, std::int64_t gpu_milli,
                            SimDuration bound_at) {
  model::PodReleased r{};
  r.bound_at = SimTime{bound_at};
  r.job = id;
  r.pod = std::move(pod);
  r.node = "n0";
  r.gpu_milli = gpu_milli;
  r.queue = "q";
  r.phase = model::PodPhase::Succeeded;
  return r;
}

model::NodeChanged node(std::int64_t gpu_milli) {
  model::NodeChanged n{};
  n.node = "n0";
  n.gpu_milli = gpu_milli;
  n.cause = "added";
  return n;
}

// Column `col` of the jobs.csv row of `job` (no quoted fields in these tests).
std::string jobs_csv_cell(const std::string& csv, const std::string& job, std::size_t col) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) f.push_back(cell);
    if (!f.empty() && f[0] == job) return col < f.size() ? f[col] : "";
  }
  return "<no row for " + job + ">";
}

// Two pods on an 8-GPU node over a 2 h horizon with 1 h buckets: a shares half a GPU for the
// first hour, b holds one whole GPU for both hours.
Recorder shared_and_whole() {
  Recorder rec(SimTime{kernel::hours(2)}, kernel::hours(1));
  const auto h = kernel::hours;
  rec.on_change(at(h(0), node(8000)));
  rec.on_change(at(h(0), submitted(0, "ns/a", 500)));
  rec.on_change(at(h(0), submitted(1, "ns/b", 1000)));
  rec.on_change(at(h(0), bound(0, "ns/a-0", 500)));
  rec.on_change(at(h(0), bound(1, "ns/b-0", 1000)));
  rec.on_change(at(h(0), phase(0, model::JobPhase::Running)));
  rec.on_change(at(h(0), phase(1, model::JobPhase::Running)));
  rec.on_change(at(h(0), model::TrainingChanged{0, 500}));
  rec.on_change(at(h(0), model::TrainingChanged{1, 1000}));
  // b loses its first 30 min to a fault (and keeps training).
  rec.on_change(at(kernel::minutes(30),
                   model::ProgressLost{1, model::LossCause::Fault, Int128{1000} * kHourUs / 2}));
  // a trains for its hour and succeeds.
  rec.on_change(
      at(h(1), model::ProgressCommitted{0, Int128{500} * kHourUs, SimTime{}, SimTime{h(1)}}));
  rec.on_change(at(h(1), model::TrainingChanged{0, 0}));
  rec.on_change(at(h(1), released(0, "ns/a-0", 500, h(0))));
  rec.on_change(at(h(1), phase(0, model::JobPhase::Succeeded)));
  // b is still training at the horizon: its last 1.5 h count as productive.
  rec.on_change(at(h(2), model::ProgressCommitted{1, Int128{1000} * kHourUs * 3 / 2,
                                                  SimTime{kernel::minutes(30)}, SimTime{h(2)}}));
  rec.finish();
  return rec;
}

}  // namespace

TEST_CASE("milli-GPU amounts print as the shortest exact decimal", "[recorder]") {
  CHECK(analysis::format_gpu_milli(8000) == "8");
  CHECK(analysis::format_gpu_milli(0) == "0");
  CHECK(analysis::format_gpu_milli(500) == "0.5");
  CHECK(analysis::format_gpu_milli(250) == "0.25");
  CHECK(analysis::format_gpu_milli(1500) == "1.5");
  CHECK(analysis::format_gpu_milli(1) == "0.001");
  CHECK(analysis::format_gpu_milli(-1500) == "-1.5");
  CHECK(analysis::format_gpu_milli(-500) == "-0.5");
  CHECK(analysis::gpu_value(8000) == 8.0);
  CHECK(analysis::gpu_value(500) == 0.5);
  // 128-bit values print exactly.
  const Int128 big = Int128{6212} * 1000 * kernel::days(160).count();  // > INT64_MAX
  CHECK(analysis::int128_to_string(big) == "85874688000000000000");
  CHECK(analysis::int128_to_string(-big) == "-85874688000000000000");
  CHECK(analysis::int128_to_string(-42) == "-42");
}

TEST_CASE("a shared half GPU and a whole GPU: GPU-hours, series and conservation", "[recorder]") {
  const Recorder rec = shared_and_whole();
  CHECK(rec.check_invariants().empty());
  // 0.5 GPU x 1 h + 1 GPU x 2 h = 2.5 GPU-hours, exactly in milli-GPU-µs.
  CHECK(rec.allocated_gpu_milli_us() == Int128{2500} * kHourUs);
  CHECK(rec.capacity_gpu_milli_us() == Int128{8000} * 2 * kHourUs);
  const auto& jobs = rec.jobs();
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].gpu_milli == 500);
  CHECK(jobs[0].allocated_gpu_milli_us == Int128{500} * kHourUs);
  CHECK(jobs[1].allocated_gpu_milli_us == Int128{2000} * kHourUs);
  CHECK(jobs[1].idle_gpu_milli_us() == 0);

  const auto m = rec.metrics();
  CHECK(m.at("gpu_hours_allocated") == Approx(2.5));
  CHECK(m.at("gpu_hours_productive") == Approx(2.0));
  CHECK(m.at("gpu_hours_lost_fault") == Approx(0.5));
  CHECK(m.at("gpu_hours_idle") == Approx(0.0).margin(1e-12));
  CHECK(m.at("gpu_hours_capacity") == Approx(16.0));
  CHECK(m.at("utilization_allocated") == Approx(2.5 / 16));

  // Time averages per bucket, in GPUs.
  const auto& cluster = rec.series().at("cluster");
  REQUIRE(cluster.size() == 2);
  CHECK(cluster[0].allocated_gpus == 1.5);
  CHECK(cluster[1].allocated_gpus == 1.0);
  // Productive as the headline counts it: b's first half hour, lost to the fault, is not drawn
  // (a's 0.5 GPU plus half an hour of b's GPU in the first hour), though b trained then.
  CHECK(cluster[0].productive_gpus == 1.0);
  CHECK(cluster[1].productive_gpus == 1.0);
  CHECK((cluster[0].productive_gpus + cluster[1].productive_gpus) == m.at("gpu_hours_productive"));
  CHECK(cluster[0].capacity_gpus == 8.0);
  CHECK(cluster[0].running_jobs == 2.0);
  CHECK(rec.series().at("queue:q")[0].allocated_gpus == 1.5);
}

TEST_CASE("jobs.csv and events.jsonl print a shared GPU as a fraction and whole GPUs as before",
          "[recorder][outputs]") {
  Recorder rec(SimTime{kernel::hours(2)}, kernel::hours(1));
  rec.on_change(at(kernel::hours(0), node(16000)));
  rec.on_change(at(kernel::hours(0), submitted(0, "ns/half", 500)));
  rec.on_change(at(kernel::hours(0), submitted(1, "ns/eight", 8000)));
  rec.on_change(at(kernel::hours(0), bound(0, "ns/half-0", 500)));
  rec.on_change(at(kernel::hours(0), bound(1, "ns/eight-0", 8000)));
  rec.finish();
  CHECK(rec.check_invariants().empty());
  const std::string csv = analysis::jobs_csv(rec);
  REQUIRE(csv.rfind("job,kind,queue,priority,replicas,gpus,", 0) == 0);
  CHECK(jobs_csv_cell(csv, "ns/half", 5) == "0.5");
  CHECK(jobs_csv_cell(csv, "ns/eight", 5) == "8");
  // gpu_hours_allocated: bound for the whole 2 h horizon.
  CHECK(jobs_csv_cell(csv, "ns/half", 21) == "1.000000");
  CHECK(jobs_csv_cell(csv, "ns/eight", 21) == "16.000000");

  const auto ev = [](model::Change c) {
    return analysis::change_json(at(kernel::seconds(1), std::move(c)));
  };
  CHECK(ev(bound(0, "ns/half-0", 500)) ==
        R"({"gpus":0.5,"jobId":0,"node":"n0","pod":"ns/half-0","t":1.0,"type":"PodBound"})");
  CHECK(ev(bound(1, "ns/eight-0", 8000)) ==
        R"({"gpus":8,"jobId":1,"node":"n0","pod":"ns/eight-0","t":1.0,"type":"PodBound"})");
  CHECK(ev(model::ProgressCommitted{0, Int128{500} * kHourUs}) ==
        R"({"gpuSeconds":1800.0,"jobId":0,"t":1.0,"type":"ProgressCommitted"})");
}

TEST_CASE("cluster-wide milli-GPU areas beyond int64 stay exact", "[recorder]") {
  // 6,212 GPUs fully allocated for 160 days: 8.6e19 milli-GPU-µs, more than int64 holds.
  const auto horizon = kernel::days(160);
  Recorder rec(SimTime{horizon}, Recorder::choose_bucket(horizon));
  rec.on_change(at(SimDuration{0}, node(6212 * 1000)));
  rec.on_change(at(SimDuration{0}, submitted(0, "ns/all", 6212 * 1000)));
  rec.on_change(at(SimDuration{0}, bound(0, "ns/all-0", 6212 * 1000)));
  rec.on_change(at(SimDuration{0}, model::TrainingChanged{0, 6212 * 1000}));
  rec.on_change(at(horizon, model::ProgressCommitted{0, Int128{6212} * 1000 * horizon.count(),
                                                     SimTime{}, SimTime{horizon}}));
  rec.finish();
  CHECK(rec.check_invariants().empty());
  const Int128 area = Int128{6212} * 1000 * horizon.count();
  REQUIRE(area > Int128{INT64_MAX});
  CHECK(rec.capacity_gpu_milli_us() == area);
  CHECK(rec.allocated_gpu_milli_us() == area);
  CHECK(rec.jobs()[0].allocated_gpu_milli_us == area);
  CHECK(rec.jobs()[0].idle_gpu_milli_us() == 0);
  const auto m = rec.metrics();
  CHECK(m.at("gpu_hours_capacity") == Approx(6212.0 * 160 * 24));
  CHECK(m.at("gpu_hours_allocated") == Approx(6212.0 * 160 * 24));
  CHECK(m.at("utilization_allocated") == 1.0);
  for (const auto& p : rec.series().at("cluster")) {
    CHECK(p.allocated_gpus == 6212.0);
    CHECK(p.capacity_gpus == 6212.0);
    CHECK(p.productive_gpus == 6212.0);
  }
}

// docs/outputs.md "Metrics by group": every headline metric per queue, kind and generator class,
// and waits of jobs that never started counted as censored at the horizon.
TEST_CASE(
    "grouped metrics: per queue, kind and class; never-started jobs censored in wait percentiles",
    "[recorder]") {
  const auto h = kernel::hours;
  Recorder rec(SimTime{h(10)}, h(1));
  analysis::RecorderGroups groups;
  groups.class_prefixes = {"gen-small"};
  groups.queue_quota_gpu_milli = {{"prod", 2000}};
  rec.set_groups(groups);
  rec.on_change(at(h(0), node(8000)));
  auto job = [&](model::JobId id, std::string name, std::string queue, model::JobKind kind) {
    auto s = submitted(id, std::move(name), 1000);
    s.queue = std::move(queue);
    s.kind = kind;
    rec.on_change(at(h(0), s));
  };
  job(0, "ns/gen-small-0", "prod", model::JobKind::GenericJob);              // waits 1 h, runs 1 h
  job(1, "ns/gen-small-1", "research", model::JobKind::PyTorchTrainingJob);  // never starts
  job(2, "ns/other-7", "research", model::JobKind::PyTorchTrainingJob);      // waits 0 h, runs 2 h
  auto bound_in = [&](SimDuration t, model::JobId id, std::string pod, std::string queue) {
    auto b = bound(id, std::move(pod), 1000);
    b.queue = std::move(queue);
    rec.on_change(at(t, b));
  };
  auto released_in = [&](SimDuration t, model::JobId id, std::string pod, std::string queue,
                         SimDuration since) {
    auto r = released(id, std::move(pod), 1000, since);
    r.queue = std::move(queue);
    rec.on_change(at(t, r));
  };
  bound_in(h(0), 2, "ns/other-7-0", "research");
  rec.on_change(at(h(0), phase(2, model::JobPhase::Running)));
  bound_in(h(1), 0, "ns/gen-small-0-0", "prod");
  rec.on_change(at(h(1), phase(0, model::JobPhase::Running)));
  released_in(h(2), 0, "ns/gen-small-0-0", "prod", h(1));
  rec.on_change(at(h(2), phase(0, model::JobPhase::Succeeded)));
  released_in(h(2), 2, "ns/other-7-0", "research", h(0));
  rec.on_change(at(h(2), phase(2, model::JobPhase::Succeeded)));
  rec.finish();
  const auto m = rec.metrics();
  // Cluster: waits 1 h and 0 h, plus the never-started job censored at 10 h.
  CHECK(m.at("jobs_never_started") == 1);
  CHECK(m.at("wait_mean_s") == Approx(1800));  // started jobs only
  CHECK(m.at("wait_p50_s") == Approx(3600));
  CHECK(m.at("wait_p90_s") == Approx(3600 + 0.8 * (36000 - 3600)));
  // Queues.
  CHECK(m.at("queue/prod/jobs_submitted") == 1);
  CHECK(m.at("queue/prod/wait_p90_s") == Approx(3600));
  CHECK(m.at("queue/prod/gpu_hours_allocated") == Approx(1));
  CHECK(m.at("queue/prod/quota_share_used") == Approx(1.0 / (2 * 10)));  // 1 GPU-h of 2 GPUs x 10 h
  CHECK(m.at("queue/research/jobs_submitted") == 2);
  CHECK(m.at("queue/research/jobs_never_started") == 1);
  CHECK(m.at("queue/research/wait_p50_s") == Approx(18000));  // 0 h and 10 h (censored)
  CHECK(m.at("queue/research/jobs_unfinished") == 1);
  CHECK(m.count("queue/research/quota_share_used") == 0);  // no quota given
  // Kinds and classes.
  CHECK(m.at("kind/GenericJob/jobs_submitted") == 1);
  CHECK(m.at("kind/PyTorchTrainingJob/jobs_submitted") == 2);
  CHECK(m.at("class/gen-small/jobs_submitted") == 2);
  CHECK(m.count("class/other/jobs_submitted") == 0);  // "other" is no generator class
  CHECK(m.at("class/gen-small/jobs_never_started") == 1);
}

// docs/outputs.md "Where capacity went": installed = down (by cause) + capacity.
TEST_CASE("capacity down by cause: node faults, GPU faults, repairs and removals", "[recorder]") {
  const auto h = kernel::hours;
  Recorder rec(SimTime{h(4)}, h(1));
  auto change = [&](SimDuration t, std::string node_name, bool ready, std::int64_t gpu_milli,
                    std::string cause) {
    model::NodeChanged n{};
    n.node = std::move(node_name);
    n.ready = ready;
    n.gpu_milli = gpu_milli;
    n.cause = std::move(cause);
    rec.on_change(at(t, n));
  };
  // In time order, as the feed is.
  change(h(0), "a", true, 8000, "added");
  change(h(0), "b", true, 8000, "added");
  change(h(1), "a", false, 8000, "xid-79");     // whole node down 1 h .. 2 h
  change(h(1), "b", true, 7000, "faulty-gpu");  // one GPU down 1 h .. 3 h
  change(h(2), "a", true, 8000, "repair");
  change(h(3), "b", true, 8000, "repair");
  change(h(3), "a", false, 0, "removed");  // a plan, not a loss
  rec.finish();
  const auto m = rec.metrics();
  CHECK(m.at("gpu_hours_down_xid-79") == Approx(8));
  CHECK(m.at("gpu_hours_down_faulty-gpu") == Approx(2));
  CHECK(m.at("gpu_hours_down") == Approx(10));
  // a: 8 x (1 + 1) ready; b: 8 x 4 - 2.
  CHECK(m.at("gpu_hours_capacity") == Approx(16 + 30));
  CHECK(m.at("gpu_hours_installed") == Approx(m.at("gpu_hours_capacity") + m.at("gpu_hours_down")));
  CHECK(m.at("gpu_hours_unallocated") == Approx(m.at("gpu_hours_capacity")));
  CHECK(m.count("gpu_hours_down_removed") == 0);
}

TEST_CASE("why jobs waited: time by cause, the last reason, the series and the events",
          "[recorder][pending]") {
  const auto h = kernel::hours;
  const auto pending = [](model::JobId id, model::PendingCause c, std::string m) {
    return model::JobPending{id, c, std::move(m)};
  };
  Recorder rec(SimTime{h(2)}, h(1));
  rec.on_change(at(h(0), node(8000)));
  rec.on_change(at(h(0), submitted(0, "ns/a", 8000)));
  rec.on_change(at(h(0), submitted(1, "ns/b", 8000)));
  // b: waits on capacity until the horizon.
  rec.on_change(at(h(0), pending(1, model::PendingCause::Capacity, "0/1 nodes are available")));
  // a: 30 min on the quota, 30 min on capacity, then placed (the driver's last message first).
  rec.on_change(at(h(0), pending(0, model::PendingCause::Quota, "queue q at quota")));
  rec.on_change(at(kernel::minutes(30),
                   pending(0, model::PendingCause::Capacity, "0/1 nodes are available: 1 x")));
  rec.on_change(at(h(1), pending(0, model::PendingCause::Capacity,
                                 "0/1 nodes are available: 1 insufficient nvidia.com/gpu")));
  rec.on_change(at(h(1), bound(0, "ns/a-0", 8000)));
  rec.finish();
  CHECK(rec.check_invariants().empty());

  const auto& a = rec.jobs().at(0);
  CHECK(a.pending_us[static_cast<int>(model::PendingCause::Quota)] == kernel::minutes(30).count());
  CHECK(a.pending_us[static_cast<int>(model::PendingCause::Capacity)] ==
        kernel::minutes(30).count());
  REQUIRE(a.pending_cause);
  CHECK(*a.pending_cause == model::PendingCause::Capacity);
  CHECK(a.pending_reason == "0/1 nodes are available: 1 insufficient nvidia.com/gpu");
  CHECK(rec.jobs().at(1).pending_us[static_cast<int>(model::PendingCause::Capacity)] ==
        h(2).count());

  const auto m = rec.metrics();
  CHECK(m.at("job_hours_pending_quota") == Approx(0.5));
  CHECK(m.at("job_hours_pending_capacity") == Approx(2.5));
  CHECK(m.at("queue/q/job_hours_pending_capacity") == Approx(2.5));
  CHECK(m.at("job_hours_pending_preempting") == 0);

  // Waiting jobs by cause, averaged per bucket.
  const auto& series = rec.series().at("cluster");
  REQUIRE(series.size() == 2);
  CHECK(series[0].pending_by_cause[static_cast<int>(model::PendingCause::Quota)] == Approx(0.5));
  CHECK(series[0].pending_by_cause[static_cast<int>(model::PendingCause::Capacity)] == Approx(1.5));
  CHECK(series[1].pending_by_cause[static_cast<int>(model::PendingCause::Capacity)] == Approx(1.0));
  const std::string ts = analysis::timeseries_csv(rec);
  CHECK(ts.rfind("time_s,scope,allocated_gpus,productive_gpus,capacity_gpus,pending_jobs,running_"
                 "jobs,pending_quota,"
                 "pending_capacity,pending_constraints,pending_preempting,pending_queue_order,"
                 "pending_gang_members\n",
                 0) == 0);

  // jobs.csv: the cause and the message (quoted: it holds commas or colons as written).
  const std::string csv = analysis::jobs_csv(rec);
  CHECK(csv.find(",pending_cause,pending_reason\n") != std::string::npos);
  CHECK(csv.find(",Capacity,0/1 nodes are available: 1 insufficient nvidia.com/gpu\n") !=
        std::string::npos);

  CHECK(analysis::change_json(
            at(kernel::seconds(1), pending(0, model::PendingCause::Quota, "queue q at quota"))) ==
        R"({"cause":"Quota","jobId":0,"message":"queue q at quota","t":1.0,"type":"JobPending"})");
}

// Issue 20: rows leave as jobs do. A row goes to the sink once its job left the world (or was
// rejected) and every row before it has gone, in JobId order; the rest at finish().
TEST_CASE("recorder: streamed rows go out in JobId order once final, with the figures of kept rows",
          "[analysis][recorder]") {
  const auto h = [](std::int64_t hours) { return SimDuration{hours * kHourUs}; };
  std::vector<model::TimedChange> feed;
  feed.push_back(at(h(0), node(8000)));
  feed.push_back(at(h(0), submitted(0, "default/a", 1000)));
  feed.push_back(at(h(0), submitted(1, "default/b", 1000)));
  feed.push_back(at(h(0), submitted(2, "default/c", 2000)));
  feed.push_back(at(h(1), model::JobRejected{1, "QueueClosed: closed"}));
  feed.push_back(at(h(1), bound(2, "default/c-0", 2000)));
  feed.push_back(at(h(1), phase(2, model::JobPhase::Running)));
  feed.push_back(at(h(2), bound(0, "default/a-0", 1000)));
  feed.push_back(at(h(2), phase(0, model::JobPhase::Running)));
  feed.push_back(at(h(3), phase(2, model::JobPhase::Succeeded)));
  feed.push_back(at(h(3), released(2, "default/c-0", 2000, h(1))));
  feed.push_back(at(h(3), model::JobLeft{2}));  // c is final, but a (JobId 0) is not
  feed.push_back(at(h(4), phase(0, model::JobPhase::Succeeded)));
  feed.push_back(at(h(4), released(0, "default/a-0", 1000, h(2))));
  feed.push_back(at(h(4), model::JobLeft{0}));
  feed.push_back(at(h(5), submitted(3, "default/d", 1000)));  // waits past the horizon

  Recorder kept(SimTime{h(6)}, h(1));
  Recorder streamed(SimTime{h(6)}, h(1));
  std::vector<std::string> out;  // (name @ time it went out)
  SimTime now{};
  streamed.stream_rows([&](const analysis::JobRow& r) {
    out.push_back(r.name.str() + "@" + std::to_string(now.time_since_epoch().count() / kHourUs));
  });
  for (const auto& c : feed) {
    now = c.time;
    kept.on_change(c);
    streamed.on_change(c);
  }
  CHECK(out == std::vector<std::string>{"default/a@4", "default/b@4", "default/c@4"});
  now = SimTime{h(6)};
  kept.finish();
  streamed.finish();
  CHECK(out.back() == "default/d@6");
  CHECK(out.size() == 4);
  CHECK(streamed.metrics() == kept.metrics());
  CHECK(streamed.check_invariants() == kept.check_invariants());
  CHECK(kept.check_invariants().empty());
  CHECK_THROWS_AS(streamed.jobs(), std::logic_error);
  CHECK(kept.jobs().size() == 4);
  // A change for a row that went out is a bug of the feed, not a silent loss.
  CHECK_THROWS_AS(streamed.on_change(at(h(6), model::ProgressCommitted{0, 1})), std::logic_error);
}

// Issue 47 item 3 (docs/outputs.md "Cost and energy"): an 8-GPU node at 80 per node-hour (10 per
// GPU-hour) drawing 1 kW idle and 9 kW busy, over 4 h. Job a holds 4 GPUs for 1 h and is
// released; job b holds 2 GPUs from 2 h to the horizon; a second node, n1, is installed for 1 h
// only (added at 1 h, removed at 2 h).
TEST_CASE("cost and energy: node-hours at their price, jobs charged their GPU-time",
          "[recorder][cost]") {
  const auto h = kernel::hours;
  Recorder rec(SimTime{h(4)}, kernel::hours(1));
  RecorderGroups g;
  for (const char* n : {"n0", "n1"}) g.node_rates[n] = NodeRates{80, 1000, 9000, 8};
  rec.set_groups(std::move(g));
  rec.on_change(at(h(0), node(8000)));
  rec.on_change(at(h(0), submitted(0, "ns/a", 4000)));
  rec.on_change(at(h(0), submitted(1, "ns/b", 2000)));
  rec.on_change(at(h(0), bound(0, "ns/a-0", 4000)));
  model::NodeChanged n1 = node(8000);
  n1.node = "n1";
  rec.on_change(at(h(1), n1));
  rec.on_change(at(h(1), released(0, "ns/a-0", 4000, h(0))));
  rec.on_change(at(h(2), bound(1, "ns/b-0", 2000)));
  n1.cause = "removed";
  n1.ready = false;
  rec.on_change(at(h(2), n1));
  rec.finish();
  CHECK(rec.check_invariants().empty());
  const auto m = rec.metrics();
  // Installed: n0 4 h, n1 1 h = 5 node-hours.
  CHECK(m.at("cost_total") == Approx(5 * 80.0));
  // a: 4 GPU-h, b: 2 GPUs x 2 h = 4 GPU-h, at 10 each.
  CHECK(m.at("cost_allocated") == Approx(80.0));
  CHECK(m.at("queue/q/cost_allocated") == Approx(80.0));
  CHECK(m.at("cost_idle") == Approx(320.0));
  CHECK(rec.jobs()[0].cost == Approx(40.0));
  CHECK(rec.jobs()[1].cost == Approx(40.0));
  // No productive time was recorded: no price per productive GPU-hour.
  CHECK(m.at("cost_per_productive_gpu_hour") == 0);
  // Idle draw 5 node-hours x 1 kW, plus 8 GPU-h x (9 − 1) kW / 8 GPUs; the jobs' share at full
  // draw is 8 GPU-h x 9/8 kW.
  CHECK(m.at("energy_total_kwh") == Approx(5.0 + 8.0));
  CHECK(m.at("energy_kwh") == Approx(9.0));
  CHECK(rec.jobs()[1].energy_kwh == Approx(4.5));
}

TEST_CASE("cost and energy: a run without prices or power has no such metrics",
          "[recorder][cost]") {
  const auto m = shared_and_whole().metrics();
  for (const auto& [name, _] : m) {
    INFO(name);
    CHECK(name.find("cost") == std::string::npos);
    CHECK(name.find("energy") == std::string::npos);
  }
}

TEST_CASE("a row's losses by cause: zero until the first, then summed per cause") {
  analysis::JobRow r;
  Int128 sum = 0;
  for (const Int128 l : r.lost_gpu_milli_us) sum += l;
  CHECK(sum == 0);
  const int sw = static_cast<int>(model::LossCause::Software);
  r.lost_gpu_milli_us.add(sw, 5000);
  r.lost_gpu_milli_us.add(sw, 2500);
  const analysis::JobRow copy = r;  // rows are copied (jobs.csv's sink): the losses with them
  r.lost_gpu_milli_us.add(0, 1);
  CHECK(copy.lost_gpu_milli_us[sw] == 7500);
  CHECK(copy.lost_gpu_milli_us[0] == (sw == 0 ? 7500 : 0));
  int n = 0;
  sum = 0;
  for (const Int128 l : r.lost_gpu_milli_us) {
    sum += l;
    ++n;
  }
  CHECK(n == model::kLossCauses);
  CHECK(sum == 7501);
}

TEST_CASE("recorder: a row's kind outlives the change that named it, built in or a plugin's") {
  Recorder rec(SimTime{kernel::hours(1)}, kernel::hours(1));
  rec.on_change(at(kernel::hours(0), node(8000)));
  {
    auto plugin = submitted(0, "ns/tf", 1000);
    plugin.kind = model::JobKind::Plugin;
    plugin.plugin_kind = std::string("TFJob") + "-from-a-plugin";  // freed with the change
    rec.on_change(at(kernel::hours(0), plugin));
    auto deep = submitted(1, "ns/ds", 1000);
    deep.kind = model::JobKind::DeepSpeedJob;
    rec.on_change(at(kernel::hours(0), deep));
  }
  rec.finish();
  const std::string csv = analysis::jobs_csv(rec);
  CHECK(jobs_csv_cell(csv, "ns/tf", 1) == "TFJob-from-a-plugin");
  CHECK(jobs_csv_cell(csv, "ns/ds", 1) == "DeepSpeedJob");
  const auto m = rec.metrics();
  CHECK(m.at("kind/TFJob-from-a-plugin/jobs_submitted") == 1);
  CHECK(m.at("kind/DeepSpeedJob/jobs_submitted") == 1);
}
