// The plugin protocol's version 2 (docs/protocol-v2.md): status and pod merge patches turn one
// value into the next for every step of random histories, and read a plugin's own (partial,
// nested) patches as RFC 7386 says; a batch and its answers cross the wire; the incremental
// observation a policy keeps equals every observation sent; malformed answers are refused with the
// field's path.
#include "tests/controllers/random_history.hpp"

#include "protocol/json_reader.hpp"
#include "protocol/objects.hpp"
#include "protocol/protocol.hpp"
#include "protocol/v2.hpp"

using namespace t9k;
using namespace t9k::controllers;
using namespace t9k::controllers::testing;

using kernel::at;
using kernel::microseconds;

namespace {

std::string status_patch(const model::JobStatus& a, const model::JobStatus& b) {
  protocol::json::Writer w;
  protocol::detail::write_status_patch(w, a, b);
  return w.take();
}

model::JobStatus patched(model::JobStatus s, const std::string& patch) {
  const auto doc = protocol::json::Document::parse(patch, "patch");
  protocol::detail::apply_status_patch(doc.root(), "statusPatch", s);
  return s;
}

protocol::Reply reply_of(const std::string& result_json, std::int64_t id = 7) {
  return protocol::Reply::parse(protocol::result_line(std::to_string(id), result_json), id);
}

}  // namespace

TEST_CASE("protocol v2: a status patch turns each status of a history into the next",
          "[protocol]") {
  int steps = 0, smaller = 0;
  for (int kind = 0; kind < kKinds; ++kind) {
    for (std::uint64_t seed = 1; seed <= 15; ++seed) {
      std::mt19937_64 rng(seed * 7919 + static_cast<std::uint64_t>(kind));
      World w(make_job(kind, rng));
      model::JobStatus before;
      for (int i = 0; i < 80; ++i) {
        random_event(w, rng);
        w.now += seconds(static_cast<std::int64_t>(rng() % 40));
        const model::JobStatus after = w.step().status;
        INFO("kind " << kind << " seed " << seed << " step " << i);
        const std::string patch = status_patch(before, after);
        REQUIRE(patched(before, patch) == after);
        ++steps;
        smaller += patch.size() < protocol::status_json(after).size();
        before = after;
      }
    }
  }
  CHECK(steps == kKinds * 15 * 80);
  CHECK(smaller > steps / 2);  // the point of patches: most are smaller than the status
}

TEST_CASE("protocol v2: a plugin's own status patches merge as RFC 7386 says", "[protocol]") {
  model::JobStatus s;
  s.phase = model::JobPhase::Running;
  s.aggregate.running = 2;
  s.aggregate.pending = 1;
  s.backoff_count = 3;
  s.start_time = at(seconds(5));
  model::DependentStatus tb;
  tb.name = "tb";
  tb.dependent.uid = "tb-1";
  tb.reason = "NotReady";
  s.tensorboard = tb;
  // One member of a nested object changes; the others stay.
  auto t = patched(s, R"({"aggregate":{"running":3},"tensorboard":{"ready":true,"reason":null}})");
  CHECK(t.aggregate.running == 3);
  CHECK(t.aggregate.pending == 1);
  CHECK(t.tensorboard->ready);
  CHECK(t.tensorboard->reason.empty());
  CHECK(t.tensorboard->dependent.uid == "tb-1");
  // null removes; absent keeps.
  t = patched(s, R"({"backoffCount":null,"startTime":null,"phase":"Succeeded"})");
  CHECK_FALSE(t.backoff_count);
  CHECK_FALSE(t.start_time);
  CHECK(t.phase == model::JobPhase::Succeeded);
  CHECK(t.aggregate == s.aggregate);
  CHECK_FALSE(patched(s, R"({"tensorboard":null})").tensorboard);
  // An empty patch changes nothing.
  CHECK(patched(s, "{}") == s);
}

TEST_CASE("protocol v2: a pod changed in observed state travels as a patch", "[protocol]") {
  model::Pod created;
  created.metadata.name = "a-w-0";
  created.metadata.uid = "pod-3";
  created.metadata.namespace_ = "default";
  created.job_name = "a";
  created.replica_type = "w";
  created.command = {"python", "train.py"};
  created.requests = model::ResourceList{{"nvidia.com/gpu", model::Quantity::from_units(8)}};
  std::vector<model::Pod> life{created};
  auto next = [&](auto change) {
    model::Pod p = life.back();
    change(p);
    life.push_back(p);
  };
  next([](model::Pod& p) {
    p.node_name = "gpu-3";
    p.bind_time = at(seconds(2));
    p.gpu_index = 1;
  });
  next([](model::Pod& p) {
    p.phase = model::PodPhase::Running;
    p.start_time = at(seconds(7));
  });
  next([](model::Pod& p) {
    p.phase = model::PodPhase::Failed;
    p.exit_code = 137;
    p.finish_time = at(seconds(70));
  });
  next([](model::Pod& p) {
    p.deletion_timestamp = at(seconds(71));
    p.deletion_reason = model::DeletionReason::Restart;
  });
  next([](model::Pod&
              p) {  // everything observed gone again (not a real life, but a patch must say so)
    p.node_name = {};
    p.gpu_index = -1;
    p.phase = model::PodPhase::Pending;
    p.exit_code.reset();
    p.finish_time.reset();
    p.start_time.reset();
    p.bind_time.reset();
    p.deletion_timestamp.reset();
    p.deletion_reason.reset();
  });
  for (std::size_t i = 1; i < life.size(); ++i) {
    INFO("step " << i);
    REQUIRE(protocol::observed_change_only(life[i - 1], life[i]));
    protocol::json::Writer w;
    protocol::detail::write_pod_patch(w, life[i - 1], life[i]);
    const std::string text = w.take();
    CHECK(text.size() < protocol::pod_json(life[i]).size());
    model::Pod p = life[i - 1];
    protocol::apply_pod_patch({"pod-3", text, "podPatches[0]"}, p);
    CHECK(p == life[i]);
  }
  // Anything else changed is not a patch: the pod is sent whole.
  model::Pod other = created;
  other.command = {"python", "eval.py"};
  CHECK_FALSE(protocol::observed_change_only(created, other));
  // A patch's error names its path.
  model::Pod p = created;
  CHECK_THROWS_WITH(
      protocol::apply_pod_patch(
          {"pod-3", R"({"metadata":{"uid":"pod-3"},"status":{"phase":"Sleeping"}})",
           "params.jobs[0].podPatches[2]"},
          p),
      Catch::Contains("params.jobs[0].podPatches[2].status.phase") && Catch::Contains("Sleeping"));
}

TEST_CASE("protocol v2: a batch and its answers cross the wire", "[protocol]") {
  std::mt19937_64 rng(42);
  World w(make_job(0, rng));
  for (int i = 0; i < 6; ++i) random_event(w, rng);
  const ReconcileResult result = w.step();
  model::JobStatus kept = result.status;

  protocol::JobUpdate first;
  first.uid = "job-0";
  first.resync = true;
  first.job = &w.job;
  first.has_status = true;
  first.status = &kept;
  for (const auto& p : w.pods) first.pods.push_back(&p);
  first.has_pod_group = true;
  first.pod_group = w.pod_group ? &*w.pod_group : nullptr;
  first.has_tensorboard = true;
  protocol::JobUpdate second;
  second.uid = "job-1";
  second.removed_pods = {"pod-9"};
  const std::vector<std::string> forget{"job-7"};
  const std::vector<protocol::JobUpdate> updates{first, second};
  const auto req = protocol::Request::parse(protocol::request_line(
      4, "reconcile", protocol::reconcile_batch_params(at(seconds(90)), updates, forget)));
  protocol::JobCache cache;
  const auto batch = protocol::decode_reconcile_batch(req, cache);
  CHECK(batch.now == at(seconds(90)));
  CHECK(batch.forget == forget);
  REQUIRE(batch.jobs.size() == 2);
  const auto& a = batch.jobs[0];
  CHECK(a.resync);
  REQUIRE(a.job);
  CHECK(model::metadata_of(*a.job) == model::metadata_of(w.job));
  CHECK(a.status == kept);
  CHECK(a.pods == w.pods);
  CHECK(a.pod_group == w.pod_group);
  CHECK(a.has_tensorboard);
  CHECK_FALSE(a.tensorboard);
  const auto& b = batch.jobs[1];
  CHECK_FALSE(b.resync);
  CHECK_FALSE(b.job);
  CHECK_FALSE(b.has_status);
  CHECK(b.removed_pods == std::vector<std::string>{"pod-9"});

  // Answers: the first with a status patch, the second unchanged, a third asking for a resync.
  ReconcileResult next = result;
  next.status.aggregate.running += 1;
  next.requeue_after = seconds(30);
  next.events = {{"Warning", "BackOff", "restarting a-w-0 in 10s"}};
  const std::vector<protocol::JobAnswerOut> out{{"job-0", false, &next, true, &kept},
                                                {"job-1", false, &result, false, nullptr},
                                                {"job-2", true, nullptr, true, nullptr}};
  const auto reply = reply_of(protocol::reconcile_batch_result(out), 4);
  REQUIRE(protocol::batch_answers(reply) == 3);
  const auto ans0 = protocol::decode_job_answer(reply, 0, "job-0", kept);
  CHECK(ans0.status == next.status);
  CHECK(ans0.actions == next.actions);
  CHECK(ans0.requeue_after == seconds(30));
  CHECK(ans0.events == next.events);
  CHECK_FALSE(protocol::decode_job_answer(reply, 1, "job-1", kept).status);
  CHECK(protocol::decode_job_answer(reply, 2, "job-2", kept).resync);
  CHECK_THROWS_WITH(protocol::decode_job_answer(reply, 1, "job-9", kept),
                    Catch::Contains("result.results[1].uid") && Catch::Contains("job-9"));
}

TEST_CASE("protocol v2: a policy keeps, from the increments, every observation sent",
          "[protocol]") {
  std::mt19937_64 rng(7);
  protocol::ObservationEncoder enc;
  protocol::ObservationDecoder dec;
  std::map<model::JobId, policies::ElasticObservation::Job> jobs;
  std::map<model::JobId, policies::ElasticObservation::Waiting> waiting;
  int removals = 0;
  for (int step = 0; step < 300; ++step) {
    policies::ElasticObservation o;
    o.now = at(seconds(60 * step) + microseconds(static_cast<std::int64_t>(rng() % 1000)));
    o.free_gpus = static_cast<std::int64_t>(rng() % 64);
    o.free_gpus_per_node = {static_cast<std::int32_t>(rng() % 4), 0, 1,
                            static_cast<std::int32_t>(rng() % 3)};
    o.queues = {{"research", 1, std::nullopt, 8000, {{0, 8000, 1}}}};
    // Jobs come, change some fields, and go.
    const auto id = static_cast<model::JobId>(rng() % 12);
    if (rng() % 4 == 0 && jobs.erase(id)) ++removals;
    if (rng() % 4 == 0 && waiting.erase(id)) ++removals;
    jobs[static_cast<model::JobId>(rng() % 12)];  // a job arrives (or is there already)
    for (auto& [k, v] : jobs) {
      v.id = k;
      v.name = "default/e" + std::to_string(k);
      v.min = 1;
      v.max = 4;
      if (v.speedup.empty()) v.speedup = {1, 1.9, 2.7, 3.4};
      if (rng() % 3 == 0) v.expected = static_cast<std::int32_t>(1 + rng() % 4);
      if (rng() % 3 == 0)
        v.progress = rng() % 5 ? std::optional(double(rng() % 1000) / 1000) : std::nullopt;
      if (rng() % 5 == 0) v.last_resize = rng() % 2 ? std::optional(o.now) : std::nullopt;
      v.running_pods = static_cast<std::int32_t>(rng() % 4);
    }
    waiting[static_cast<model::JobId>(rng() % 12)];
    for (auto& [k, v] : waiting) {
      v.job = k;
      v.name = "default/w" + std::to_string(k);
      v.waiting_pods = static_cast<std::int32_t>(1 + rng() % 3);
      v.growth_pods = static_cast<std::int32_t>(rng() % 2);
      v.demand = {{"nvidia.com/gpu", model::Quantity::from_units(8 * v.waiting_pods)}};
      if (rng() % 3 == 0)
        v.pending_cause = rng() % 2 ? std::optional(model::PendingCause::Quota) : std::nullopt;
    }
    for (const auto& [k, v] : waiting) o.waiting.push_back(v);
    for (const auto& [k, v] : jobs) o.jobs.push_back(v);
    const auto req = protocol::Request::parse(protocol::request_line(2, "decide", enc.params(o)));
    INFO("step " << step);
    REQUIRE(dec.apply(req) == o);
    if (step == 150) enc.resync();  // a resync sends everything again; the decoder starts over
  }
  CHECK(removals > 10);
  // An answer asking for the whole observation.
  policies::ElasticObservation o;
  CHECK(protocol::decode_decide_answer(reply_of(R"({"decisions":[],"resync":true})"), o).resync);
}
