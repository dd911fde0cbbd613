// The built-in elastic policies as decision tables: an observation and the decisions each must
// give (docs/simulation-model.md "Elastic policies", issue 6 §5, issue 14 §5).
#include <catch2/catch.hpp>

#include "policies/elastic.hpp"

using namespace t9k;
using namespace t9k::policies;
using kernel::minutes;
using kernel::SimTime;

namespace {

using Job = ElasticObservation::Job;
using Waiting = ElasticObservation::Waiting;

// An elastic job: id, queue priority, [min, max], expected, GPUs per pod; linear speed-up.
Job job(model::JobId id, std::int32_t prio, std::int32_t min, std::int32_t max,
        std::int32_t expected, std::int64_t gpus, std::string queue = "q") {
  Job j;
  j.id = id;
  j.name = "default/j" + std::to_string(id);
  j.queue = std::move(queue);
  j.queue_priority = prio;
  j.min = min;
  j.max = max;
  j.expected = expected;
  j.gpus_per_pod = gpus;
  for (std::int32_t n = 1; n <= max; ++n) j.speedup.push_back(n);
  return j;
}

// A waiting job as version 1 of the observation gives it: its queue's priority and its id.
Waiting waiting(std::int32_t queue_priority, model::JobId job) {
  Waiting w;
  w.queue_priority = queue_priority;
  w.job = job;
  return w;
}

struct Row {
  const char* what;
  std::int64_t free_gpus;
  std::vector<Waiting> waiting;
  std::vector<Job> jobs;
  std::vector<ElasticDecision> want;
};

ElasticObservation observe(const Row& r) {
  ElasticObservation o;
  o.now = SimTime{minutes(60)};
  o.free_gpus = r.free_gpus;
  o.waiting = r.waiting;
  o.jobs = r.jobs;
  return o;
}

}  // namespace

TEST_CASE("greedy: grow on idle GPUs, shrink under pressure", "[policies]") {
  const std::vector<Row> rows{
      {"idle GPUs: grow toward maxReplicas", 16, {}, {job(0, 1, 1, 4, 2, 4)}, {{0, 4}}},
      {"growth limited by the free GPUs", 8, {}, {job(0, 1, 1, 8, 2, 4)}, {{0, 4}}},
      {"fewer free GPUs than one pod needs: no change", 4, {}, {job(0, 1, 1, 4, 2, 8)}, {}},
      {"at maxReplicas: no change", 64, {}, {job(0, 1, 1, 4, 4, 4)}, {}},
      {"work of equal priority waits: shrink to minReplicas",
       64,
       {waiting(1, 5)},
       {job(0, 1, 1, 4, 3, 4)},
       {{0, 1}}},
      {"work of higher priority waits: shrink",
       0,
       {waiting(9, 5)},
       {job(0, 1, 2, 4, 3, 4)},
       {{0, 2}}},
      {"only lower-priority work waits: grow",
       8,
       {waiting(0, 5)},
       {job(0, 1, 1, 4, 2, 4)},
       {{0, 4}}},
      {"the job's own pending pods are no pressure",
       8,
       {waiting(1, 0)},
       {job(0, 1, 1, 4, 2, 4)},
       {{0, 4}}},
      {"jobs in id order take the free GPUs first",
       8,
       {},
       {job(0, 1, 1, 4, 1, 4), job(1, 1, 1, 4, 1, 4)},
       {{0, 3}}},
      {"a pod without GPUs counts one", 2, {}, {job(0, 1, 1, 8, 1, 0)}, {{0, 3}}},
      {"under pressure at minReplicas: no change", 0, {waiting(1, 5)}, {job(0, 1, 2, 4, 2, 4)}, {}},
  };
  const GreedyPolicy greedy;
  for (const auto& row : rows) {
    INFO(row.what);
    CHECK(greedy.decide(observe(row)).decisions == row.want);
  }
}

TEST_CASE("greedy: growth stays within the queue's quota", "[policies]") {
  Row r{"", 64, {}, {job(0, 1, 1, 8, 1, 4, "research"), job(1, 1, 1, 8, 1, 4, "other")}, {}};
  auto o = observe(r);
  // research: quota 16 GPUs, 8 held: room for 2 more pods of 4. "other" has no quota.
  o.queues = {{"other", 1, std::nullopt, 0, {}}, {"research", 1, 16000, 8000, {}}};
  const auto d = GreedyPolicy().decide(o).decisions;
  CHECK(d == std::vector<ElasticDecision>{{0, 3}, {1, 8}});
  // A queue already over its quota offers no room (not a negative one).
  o.queues[1].allocated_gpu_milli = 20000;
  CHECK(GreedyPolicy().decide(o).decisions == std::vector<ElasticDecision>{{1, 8}});
}

TEST_CASE("greedy: a job resized less than the cooldown ago is left alone", "[policies]") {
  Row r{"", 16, {}, {job(0, 1, 1, 4, 2, 4), job(1, 1, 1, 4, 2, 4)}, {}};
  auto o = observe(r);
  o.jobs[0].last_resize = o.now - minutes(9);
  o.jobs[1].last_resize = o.now - minutes(10);
  const GreedyPolicy greedy(PolicyOptions{minutes(10), minutes(2)});
  CHECK(greedy.decide(o).decisions ==
        std::vector<ElasticDecision>{{1, 4}});  // j0 cools down; j1 just may
  CHECK(GreedyPolicy().decide(o).decisions ==
        std::vector<ElasticDecision>{{0, 4}, {1, 4}});  // no cooldown
}

TEST_CASE("checkpoint-aligned: resize right after a checkpoint, else ask to decide at the next",
          "[policies]") {
  Row r{"", 16, {}, {job(0, 1, 1, 4, 2, 4), job(1, 1, 1, 4, 2, 4), job(2, 1, 1, 4, 2, 4)}, {}};
  auto o = observe(r);
  for (auto& j : o.jobs) {
    j.training = true;
    j.checkpoint_interval = minutes(30);
    j.checkpoint_cost = minutes(1);
  }
  o.jobs[0].since_checkpoint = minutes(1);   // within the 2 min window: resize
  o.jobs[1].since_checkpoint = minutes(20);  // next checkpoint completes in 31 - 20 = 11 min
  o.jobs[2].since_checkpoint = minutes(25);  // in 6 min
  o.free_gpus = 24;
  const CheckpointAlignedPolicy policy(PolicyOptions{kernel::SimDuration{0}, minutes(2)});
  const auto d = policy.decide(o);
  CHECK(d.decisions == std::vector<ElasticDecision>{{0, 4}});
  REQUIRE(d.next);
  CHECK(*d.next == o.now + minutes(6));
  // A job not training loses nothing by a resize now.
  o.jobs[1].training = false;
  CHECK(policy.decide(o).decisions == std::vector<ElasticDecision>{{0, 4}, {1, 4}});
}

TEST_CASE("goodput: free GPUs go to the best marginal speed-up per GPU first", "[policies]") {
  Row r{"", 8, {}, {job(0, 1, 1, 4, 1, 4), job(1, 1, 1, 4, 1, 4)}, {}};
  auto o = observe(r);
  o.jobs[0].speedup = {1.0, 1.2, 1.3, 1.35};  // scales badly
  o.jobs[1].speedup = {1.0, 1.9, 2.7, 3.4};   // scales well
  CHECK(GoodputPolicy().decide(o).decisions == std::vector<ElasticDecision>{{1, 3}});
  // scalingWeight multiplies a job's gain: weight 5 makes j0's 0.2 beat j1's 0.9.
  o.jobs[0].scaling_weight = 5;
  CHECK(GoodputPolicy().decide(o).decisions == std::vector<ElasticDecision>{{0, 2}, {1, 2}});
  // No gain, no growth: a flat curve keeps its size even with GPUs idle.
  o.jobs[0].scaling_weight = 1;
  o.jobs[0].speedup = {1, 1, 1, 1};
  o.jobs[1].speedup = {1, 1, 1, 1};
  CHECK(GoodputPolicy().decide(o).decisions.empty());
  // Pressure shrinks as greedy does.
  o.waiting = {waiting(1, 9)};
  o.jobs[1].expected = 3;
  CHECK(GoodputPolicy().decide(o).decisions == std::vector<ElasticDecision>{{1, 1}});
}

TEST_CASE("built-in policies by name", "[policies]") {
  for (const auto name : elastic_policy_names()) {
    const auto p = make_elastic_policy(name);
    REQUIRE(p);
    CHECK(p->name() == name);
  }
  CHECK_FALSE(make_elastic_policy("fixed")->decides());
  CHECK(make_elastic_policy("greedy")->decides());
  CHECK(make_elastic_policy("random") == nullptr);
}
