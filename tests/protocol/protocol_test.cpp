// The plugin protocol's codec (docs/protocol.md, docs/protocol-v2.md): what one side encodes, the
// other decodes to the same values, for every reconcile the real controllers see and answer over
// random histories (tests/controllers/random_history.hpp), for every field the world sets on pods,
// and for the elastic policies' observations; malformed messages are refused with the field's path.
#include "tests/controllers/random_history.hpp"

#include "protocol/json_reader.hpp"
#include "protocol/protocol.hpp"

using namespace t9k;
using namespace t9k::controllers;
using namespace t9k::controllers::testing;

using kernel::at;
using kernel::microseconds;
using kernel::minutes;

namespace {

constexpr std::uint64_t kSeeds = 25;

// The generated jobs are built in code; a job crosses the wire as a manifest, so it must be one a
// user could write (the simulator's jobs all come from the loader).
model::Job as_manifest(model::Job job) {
  if (auto* d = std::get_if<model::DeepSpeedJob>(&job)) {
    if (!d->spec.config->custom_command && !d->spec.config->run.python &&
        !d->spec.config->run.module && !d->spec.config->run.exec) {
      d->spec.config->run.python = std::vector<std::string>{"train.py"};
    }
  }
  return job;
}

// The histories set expectedReplicas anywhere in 0..5; operations and policies keep it within
// [minReplicas, maxReplicas] (scenarios refuse others).
void keep_in_range(model::Job& job) {
  std::visit(
      [](auto& j) {
        using T = std::decay_t<decltype(j)>;
        if constexpr (!std::is_same_v<T, model::GenericJob> &&
                      !std::is_same_v<T, model::PluginJob>) {
          if (auto& e = j.spec.elastic)
            e->expected_replicas =
                std::clamp(e->expected_replicas, e->min_replicas, e->max_replicas);
        }
      },
      job);
}

model::Pod make_pod_named(const std::string& name) {
  model::Pod p;
  p.metadata.name = name;
  return p;
}
constexpr int kEvents = 100;

protocol::Reply reply_of(const std::string& result_json, std::int64_t id = 7) {
  return protocol::Reply::parse(protocol::result_line(std::to_string(id), result_json), id);
}

}  // namespace

TEST_CASE("protocol: every reconcile's input and result cross the wire unchanged", "[protocol]") {
  protocol::JobCache cache;
  int compared = 0;
  std::array<int, std::variant_size_v<Action>> by_kind{};
  for (int kind = 0; kind < kKinds; ++kind) {
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      std::mt19937_64 rng(seed * 104729 + static_cast<std::uint64_t>(kind));
      World w(as_manifest(make_job(kind, rng)));
      // Queues named as a manifest must name them (an empty queue exists only in objects built in
      // code).
      if (rng() % 2) use_t9k_scheduler(w.job, rng() % 2 ? "research" : "default");
      vary_options(w.options, rng);
      for (int i = 0; i < kEvents; ++i) {
        random_event(w, rng);
        keep_in_range(w.job);
        if (w.tensorboard && rng() % 4 == 0) w.tensorboard->ready = !w.tensorboard->ready;
        if (rng() % 15 == 0) resize_or_requeue(w.job, rng);
        w.now += seconds(static_cast<std::int64_t>(rng() % 40)) +
                 microseconds(static_cast<std::int64_t>(rng() % 1000));
        INFO("kind " << kind << " seed " << seed << " step " << i);

        const ReconcileInput in{w.job,         w.pods, w.pod_group ? &*w.pod_group : nullptr,
                                w.tensorboard, w.now,  w.options};
        const auto req = protocol::Request::parse(
            protocol::request_line(3, "reconcile", protocol::reconcile_params(in)));
        REQUIRE(req.method() == "reconcile");
        REQUIRE(req.id_json() == "3");
        const auto got_in = protocol::decode_reconcile(req, cache);
        REQUIRE(got_in.job == w.job);
        REQUIRE(got_in.pods == w.pods);
        REQUIRE(got_in.pod_group == w.pod_group);
        REQUIRE(got_in.tensorboard == w.tensorboard);
        REQUIRE(got_in.now == w.now);
        REQUIRE(got_in.options.t9k_retryable_exit_codes == w.options.t9k_retryable_exit_codes);
        REQUIRE(protocol::options_json(got_in.options) == protocol::options_json(w.options));

        const ReconcileResult& result = w.step();
        REQUIRE(protocol::decode_reconcile_result(reply_of(protocol::reconcile_result(result))) ==
                result);
        ++compared;
        for (const auto& a : result.actions) ++by_kind[a.index()];
      }
    }
  }
  CHECK(compared == kKinds * static_cast<int>(kSeeds) * kEvents);
  for (std::size_t k = 0; k < by_kind.size(); ++k) {
    INFO("Action alternative " << k);
    CHECK(by_kind[k] > 0);  // every kind of action crossed the wire
  }
}

TEST_CASE("protocol: every field the world sets on a pod crosses the wire", "[protocol]") {
  model::Pod p = make_pod_named("train-worker-3");
  p.metadata.namespace_ = "team-a";
  p.metadata.uid = "pod-17";
  p.metadata.creation_timestamp = at(seconds(5) + microseconds(1));
  p.metadata.labels = {{"app", "x"}};
  p.metadata.annotations = model::Labels{{"note", "quote \" and ünïcode"}};
  p.metadata.owner_references = {
      {"batch.tensorstack.dev/v1beta1", "PyTorchTrainingJob", "train", "job-1", true}};
  p.job_name = "train";
  p.replica_type = "worker";
  p.rank = 3;
  p.generation = 2;
  p.requests = model::ResourceList{{"cpu", model::Quantity::parse("1500m")},
                                   {"nvidia.com/gpu", model::Quantity::from_units(8)},
                                   {"memory", model::Quantity::parse("64Gi")}};
  p.node_selector = {{"gpu", "h100"}};
  p.scheduler_name = "t9k-scheduler";
  p.queue = "research";
  p.pod_group = "train";
  p.role = "worker";
  p.priority = 7;
  p.debug = true;
  p.command = {"torchrun", "--nproc_per_node=8"};
  p.args = {"train.py", "--lr", "0.1"};
  p.termination_grace_period_seconds = 45;
  p.node_name = "h100-3";
  p.gpu_index = 5;
  p.phase = model::PodPhase::Failed;
  p.exit_code = 137;
  p.bind_time = at(seconds(6));
  p.start_time = at(seconds(11));
  p.finish_time = at(seconds(3600));
  p.deletion_timestamp = at(seconds(3601));
  p.deletion_reason = model::DeletionReason::Preemption;
  CHECK(protocol::decode_pod(protocol::pod_json(p)) == p);
  // Unset optionals stay unset.
  model::Pod bare = make_pod_named("x-w-0");
  bare.job_name = "x";
  bare.replica_type = "w";
  CHECK(protocol::decode_pod(protocol::pod_json(bare)) == bare);
}

TEST_CASE("protocol: a built-in controller's pod crosses with its implied §10 labels spelled out",
          "[protocol]") {
  model::Pod p = make_pod_named("train-worker-1");
  p.metadata.labels = {{"app", "x"}};  // the template's
  p.job_name = "train";
  p.replica_type = "worker";
  p.rank = 1;
  p.scheduler_name = "t9k-scheduler";
  p.queue = "research";
  p.pod_group = "train";
  p.role = "worker";
  p.standard_labels = model::JobKind::GenericJob;
  const std::string json = protocol::pod_json(p);
  CHECK(json.find(R"("genericjob-replica":"train-worker-1")") != std::string::npos);
  CHECK(json.find(R"("scheduler.tensorstack.dev/queue":"research")") != std::string::npos);
  // Read back, the labels become implied again: one representation, so the pods compare equal.
  const model::Pod back = protocol::decode_pod(json);
  CHECK(back == p);
  CHECK(model::pod_labels(back).size() == 9);
  // A pod that lacks one of §10's labels keeps all its labels stored.
  model::Pod partial = p;
  partial.standard_labels.reset();
  partial.metadata.labels = model::pod_labels(p);
  partial.metadata.labels.erase(model::LabelKey(model::kLabelOwnerName));
  const model::Pod partial_back = protocol::decode_pod(protocol::pod_json(partial));
  CHECK_FALSE(partial_back.standard_labels);
  CHECK(partial_back == partial);
  // A value that differs from the implied one too (the owner name of another job).
  partial.metadata.labels[model::LabelKey(model::kLabelOwnerName)] = "other";
  CHECK_FALSE(protocol::decode_pod(protocol::pod_json(partial)).standard_labels);
}

TEST_CASE("protocol: an elastic policy's observation and decisions cross the wire", "[protocol]") {
  policies::ElasticObservation o;
  o.now = at(seconds(600) + microseconds(3));
  o.free_gpus = 17;
  o.queues = {{"production", 10, 192000, 184000, {{50, 16000, 2}, {0, 500, 1}}},
              {"research", 1, std::nullopt, 64500, {}}};
  for (const auto& [queue_priority, id] : {std::pair{10, 4}, std::pair{1, 9}}) {
    auto& w = o.waiting.emplace_back();  // as version 1 gives a waiting job
    w.queue_priority = queue_priority;
    w.job = id;
  }
  policies::ElasticObservation::Job j;
  j.id = 9;
  j.name = "research/explore-3";
  j.queue = "research";
  j.queue_priority = 1;
  j.min = 1;
  j.max = 4;
  j.expected = 2;
  j.running_pods = 2;
  j.gpus_per_pod = 8;
  j.scaling_weight = 0.1 + 0.2;  // not exactly representable in decimal: must still round-trip
  j.speedup = {1, 1.9047619047619047, 2.7586206896551726, 3.4782608695652173};
  j.progress = 1.0 / 3;
  j.training = true;
  j.since_checkpoint = microseconds(123456789);
  j.checkpoint_interval = seconds(900);
  j.checkpoint_cost = seconds(30);
  j.rescale_overhead = seconds(120);
  j.last_resize = at(seconds(300));
  o.jobs = {j, j};
  o.jobs[1].id = 11;
  o.jobs[1].name = "research/explore-4";
  o.jobs[1].progress.reset();
  o.jobs[1].since_checkpoint.reset();
  o.jobs[1].checkpoint_interval.reset();
  o.jobs[1].last_resize.reset();
  const auto req =
      protocol::Request::parse(protocol::request_line(1, "decide", protocol::decide_params(o)));
  CHECK(protocol::decode_decide(req) == o);

  const policies::ElasticDecisions d{{{9, 3}, {11, 1}}, at(seconds(700))};
  CHECK(protocol::decode_decide_result(reply_of(protocol::decide_result(d, o)), o) == d);
  // A plugin may name jobs instead of giving their ids.
  const auto by_name = protocol::decode_decide_result(
      reply_of(
          R"({"decisions":[{"job":"research/explore-4","expectedReplicas":2}],"nextDecision":"1970-01-01T00:20:00Z"})"),
      o);
  CHECK(by_name == policies::ElasticDecisions{{{11, 2}}, at(seconds(1200))});
  // A job the request did not offer is refused naming the decision's field: the path printed
  // once ran through a parent that had died with its statement (a crash in Release builds).
  CHECK_THROWS_WITH(
      protocol::decode_decide_result(
          reply_of(
              R"({"decisions":[{"jobId":9,"expectedReplicas":1},{"job":"default/nobody","expectedReplicas":1}]})"),
          o),
      Catch::Contains("result.decisions[1].job: expected an elastic job of the request's jobs"));
}

// A path may only be built under a named one: a child of a temporary would outlive its parent.
template <class P>
concept ItemOf = requires(P&& p) {
  protocol::detail::item(std::forward<P>(p), std::size_t{0});
};
template <class P>
concept ChildOf = requires(P&& p) {
  protocol::detail::child(std::forward<P>(p), "key");
};
static_assert(ItemOf<const protocol::detail::Path&> && ChildOf<const protocol::detail::Path&>);
static_assert(!ItemOf<protocol::detail::Path> && !ChildOf<protocol::detail::Path>);

TEST_CASE("protocol: initialize carries the options; the hello comes back", "[protocol]") {
  ControllerOptions opts;
  opts.restart_backoff = true;
  opts.t9k_retryable_exit_codes = {137};
  const protocol::PolicySettings pol{"goodput", {minutes(7), minutes(1)}, minutes(5)};
  const auto req = protocol::Request::parse(
      protocol::request_line(1, "initialize",
                             protocol::initialize_params(protocol::Role::ElasticPolicy,
                                                         {"GenericJob"}, "0.1.0", opts, pol)));
  const auto init = protocol::decode_initialize(req);
  CHECK(init.protocol_version == protocol::kProtocolVersion);
  CHECK(init.role == protocol::Role::ElasticPolicy);
  CHECK(init.kinds == std::vector<std::string>{"GenericJob"});
  CHECK(init.controller_options.restart_backoff);
  CHECK(init.controller_options.t9k_retryable_exit_codes == std::vector<std::int32_t>{137});
  CHECK(init.policy_settings.policy == "goodput");
  CHECK(init.policy_settings.options.cooldown == minutes(7));
  CHECK(init.policy_settings.period == minutes(5));
  const auto hello =
      protocol::decode_hello(reply_of(protocol::hello_result({"1", "mine", false, {}})));
  CHECK(hello.protocol_version == "1");
  CHECK(hello.name == "mine");
  CHECK_FALSE(hello.decides);
}

TEST_CASE("protocol: malformed messages are refused with the field's path", "[protocol]") {
  struct Row {
    std::string reply;
    std::string message;
  };
  const std::string status = R"("status":{"phase":"Pending"})";
  const std::vector<Row> rows{
      {"not json", "the reply: not JSON"},
      {R"({"jsonrpc":"2.0","id":8,"result":{}})", "id: expected 7 (the request's id), found 8"},
      {R"({"jsonrpc":"1.0","id":7,"result":{}})", "jsonrpc: expected \"2.0\""},
      {R"({"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"boom"}})",
       "the plugin answered error -32000: boom"},
      {R"({"jsonrpc":"2.0","id":7})", "result: required field is missing"},
      {R"({"jsonrpc":"2.0","id":7,"result":{"actions":[]}})",
       "result.status: required field is missing"},
      {R"({"jsonrpc":"2.0","id":7,"result":{"actions":[{"type":"Explode"}],)" + status + "}}",
       "result.actions[0].type: expected CreatePod, DeletePod, CreatePodGroup, UpdatePodGroup, "
       "CreateTensorBoard or "
       "RestartTraining, found the string \"Explode\""},
      {R"({"jsonrpc":"2.0","id":7,"result":{"actions":[{"type":"DeletePod","name":"x","reason":"Bored"}],)" +
           status + "}}",
       "result.actions[0].reason: expected one of Cleanup, Pause"},
      {R"({"jsonrpc":"2.0","id":7,"result":{"actions":[{"type":"CreatePod","pod":{"metadata":{"name":"a"},"spec":{"containers":[]},"t9ksim":{"job":"j","replicaType":"w","rank":"zero"}}}],)" +
           status + "}}",
       "result.actions[0].pod.t9ksim.rank: expected a whole number, found the string \"zero\""},
      {R"({"jsonrpc":"2.0","id":7,"result":{"status":{"phase":"Done"}}})",
       "result.status.phase: expected one of Pending, Running"},
      {R"({"jsonrpc":"2.0","id":7,"result":{"status":{"conditions":[{"type":"Running","status":"True","lastTransitionTime":"yesterday"}]}}})",
       "result.status.conditions[0].lastTransitionTime: expected an RFC 3339 time"},
      {R"({"jsonrpc":"2.0","id":7,"result":{)" + status + R"(,"requeueAfter":"soon"}})",
       "result.requeueAfter:"},
      {R"({"jsonrpc":"2.0","id":7,"result":{)" + status + R"(,"requeueAfterMicros":-5}})",
       "result.requeueAfterMicros: expected a duration >= 0 (microseconds), found -5"},
      {R"({"jsonrpc":"2.0","id":7,"result":{)" + status + R"(,"events":{"reason":"x"}}})",
       "result.events: expected a list"},
      {R"({"jsonrpc":"2.0","id":7,"result":{)" + status + R"(,"events":[{"reason":7}]}})",
       "result.events[0].reason: expected a string"},
  };
  for (const auto& row : rows) {
    INFO(row.reply);
    CHECK_THROWS_WITH(protocol::decode_reconcile_result(protocol::Reply::parse(row.reply, 7)),
                      Catch::Contains(row.message));
  }
  // A requeue may also be written as a duration.
  const auto r = protocol::decode_reconcile_result(protocol::Reply::parse(
      R"({"jsonrpc":"2.0","id":7,"result":{)" + status + R"(,"requeueAfter":"1m30s"}})", 7));
  CHECK(r.requeue_after == seconds(90));
  // Events a controller recorded (docs/protocol.md §5): type defaults to Normal.
  const auto e = protocol::decode_reconcile_result(protocol::Reply::parse(
      R"({"jsonrpc":"2.0","id":7,"result":{)" + status +
          R"(,"events":[{"reason":"Created","message":"pod a-w-0"},{"type":"Warning","reason":"Failed"}]}})",
      7));
  REQUIRE(e.events.size() == 2);
  CHECK(e.events[0] == controllers::ControllerEvent{"Normal", "Created", "pod a-w-0"});
  CHECK(e.events[1] == controllers::ControllerEvent{"Warning", "Failed", ""});
  CHECK(protocol::decode_reconcile_result(reply_of(protocol::reconcile_result(e))) == e);
}
