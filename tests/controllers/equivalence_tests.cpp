// Equivalence of the optimised controllers with the frozen reference copy of the implementation
// they replaced (tests/controllers/reference/, namespace t9k::controllers::reference): for random
// pod-event histories (the property tests' generator, random_history.hpp) every reconcile must
// return the same ReconcileResult (actions in order, status, requeue) for the same input.
// Besides the property tests' jobs the histories vary the options of docs/controllers.md, run
// modes (debug, resumeSpecs), templates (labels, annotations, init containers), TensorBoard and
// elastic PyTorch, so that every branch of the reconcile that builds strings or pods is compared.
#include "random_history.hpp"
#include "reference/kinds.hpp"
#include "support.hpp"

#include <array>
#include <random>

using namespace t9k::controllers;
using namespace t9k::controllers::testing;
namespace model = t9k::model;

namespace {

constexpr int kKinds = 4;  // 0 GenericJob, 1 PyTorchTrainingJob, 2 elastic DeepSpeedJob, 3 elastic PyTorch
constexpr std::uint64_t kSeeds = 60;
constexpr int kEvents = 120;

// Template details make_pod copies or derives from (labels, annotations, init containers, a
// second container, node selector, scheduler name, priority, grace period).
void decorate(model::PodTemplateSpec& t, std::mt19937_64& rng) {
  if (rng() % 2) {
    t.metadata.labels["app"] = "train";
    t.metadata.annotations["note"] = "x";
  }
  if (rng() % 3 == 0) {
    model::Container init;
    init.name = "init";
    init.resources.requests[model::kResourceCpu] = model::Quantity::from_units(4);
    t.spec.init_containers.push_back(init);
  }
  if (rng() % 3 == 0) {
    model::Container side;
    side.name = "sidecar";
    side.command = {"sleep"};
    t.spec.containers.insert(t.spec.containers.begin(), side);  // the training container is not first
  }
  if (rng() % 3 == 0) t.spec.node_selector["gpu"] = "a100";
  if (rng() % 3 == 0) t.spec.scheduler_name = "custom-scheduler";
  if (rng() % 3 == 0) t.spec.priority = 7;
  if (rng() % 3 == 0) t.spec.termination_grace_period_seconds = 5;
}

template <class Spec>
void vary_run_mode(Spec& spec, const std::string& type, std::mt19937_64& rng) {
  if (rng() % 8 == 0) {
    spec.run_mode.debug.enabled = true;
    if (rng() % 2) spec.run_mode.debug.replica_specs.push_back({type, rng() % 2 == 0, {"bash"}});
  }
  if (rng() % 2) spec.run_mode.pause.resume_specs.push_back({type, rng() % 2 == 0, {"resume.sh"}, {"--from", "ckpt"}});
}

model::Job make_job(int kind, std::mt19937_64& rng) {
  model::Job job = make_random_job(kind == 3 ? 1 : kind, rng);
  if (auto* g = std::get_if<model::GenericJob>(&job)) {
    for (auto& r : g->spec.replica_specs) decorate(r.template_, rng);
    vary_run_mode(g->spec, "worker", rng);
  } else if (auto* p = std::get_if<model::PyTorchTrainingJob>(&job)) {
    for (auto& r : p->spec.replica_specs) decorate(r.template_, rng);
    vary_run_mode(p->spec, "master", rng);
    if (rng() % 3 == 0) p->spec.tensorboard_spec = model::TensorBoardSpec{"tb-image", {"/logs"}};
    if (kind == 3) {
      p->spec.elastic = model::ElasticConfig{true, 1, 5, 1 + static_cast<std::int32_t>(rng() % 5)};
      p->spec.torchrun_config = model::TorchrunConfig{};
      p->spec.torchrun_config->enabled = true;
      p->spec.replica_specs[1].scaling_weight = static_cast<std::int32_t>(rng() % 4);
    }
  } else {
    auto& d = std::get<model::DeepSpeedJob>(job);
    decorate(d.spec.worker.template_, rng);
    vary_run_mode(d.spec, "worker", rng);
    if (rng() % 3 == 0) d.spec.config.slots_per_worker = 4;
  }
  return job;
}

void vary_options(ControllerOptions& o, std::mt19937_64& rng) {
  using O = ControllerOptions;
  if (rng() % 3 == 0) o.retryable_exit_codes = O::RetryableExitCodes::KubeflowAtLeast128;
  if (rng() % 3 == 0) o.backoff_limit_rule = O::BackoffLimitRule::KubeflowReachLimit;
  if (rng() % 4 == 0) o.exit_code_ignores_backoff_limit = true;
  if (rng() % 3 == 0) o.restart_backoff = true;
  if (rng() % 3 == 0) o.permanent_failure_scope = O::PermanentFailureScope::MasterOnly;
  if (rng() % 3 == 0) o.max_duration = O::MaxDurationHandling::Recreate;
  if (rng() % 3 == 0) o.running_when = O::RunningWhen::MasterRunning;
  if (rng() % 3 == 0) o.generic_limit_scope = O::GenericLimitScope::PerType;
  if (rng() % 3 == 0) o.elastic_success = O::ElasticSuccess::AnyReplica;
}

// Spec edits the pod events do not make: the last replica type's count (scale-down leaves pods
// beyond the desired ranks) and the T9k scheduler's priority (both update the PodGroup).
void resize_or_requeue(model::Job& job, std::mt19937_64& rng) {
  const auto n = static_cast<std::int32_t>(1 + rng() % 3);
  if (rng() % 2) {
    if (auto* g = std::get_if<model::GenericJob>(&job)) g->spec.replica_specs.back().replicas = n;
    if (auto* p = std::get_if<model::PyTorchTrainingJob>(&job)) p->spec.replica_specs.back().replicas = n;
    return;
  }
  std::visit(
      [&](auto& j) {
        if (auto& t9k = j.spec.scheduler.t9k_scheduler) t9k->priority = n * 10;
      },
      job);
}

const Controller& reference_for(const model::Job& job) {
  static const reference::GenericJobController generic;
  static const reference::PyTorchTrainingJobController pytorch;
  static const reference::DeepSpeedJobController deepspeed;
  switch (model::kind_of(job)) {
    case model::JobKind::GenericJob: return generic;
    case model::JobKind::PyTorchTrainingJob: return pytorch;
    case model::JobKind::DeepSpeedJob: break;
  }
  return deepspeed;
}

}  // namespace

TEST_CASE("Equivalence: the controllers return what the frozen reference implementation returns") {
  int compared = 0, with_actions = 0;
  std::array<int, std::variant_size_v<Action>> by_kind{};  // actions compared, by alternative
  for (int kind = 0; kind < kKinds; ++kind) {
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      std::mt19937_64 rng(seed * 7919 + static_cast<std::uint64_t>(kind));
      World w(make_job(kind, rng));
      if (rng() % 2) use_t9k_scheduler(w.job, rng() % 2 ? "research" : "");
      vary_options(w.options, rng);
      for (int i = 0; i < kEvents; ++i) {
        random_event(w, rng);
        if (kind == 3 && rng() % 10 == 0) {
          w.pytorch().spec.elastic->expected_replicas = static_cast<std::int32_t>(rng() % 6);
        }
        if (w.tensorboard && rng() % 4 == 0) w.tensorboard->ready = !w.tensorboard->ready;
        if (rng() % 15 == 0) resize_or_requeue(w.job, rng);
        w.now += seconds(static_cast<std::int64_t>(rng() % 40));

        const ReconcileInput in{w.job, w.pods, w.pod_group ? &*w.pod_group : nullptr, w.tensorboard, w.now,
                                w.options};
        const ReconcileResult want = reference_for(w.job).reconcile(in);
        const ReconcileResult& got = w.step();
        INFO("kind " << kind << " seed " << seed << " step " << i);
        REQUIRE(got.actions.size() == want.actions.size());
        for (std::size_t a = 0; a < want.actions.size(); ++a) {
          INFO("action " << a << " (variant index " << want.actions[a].index() << ")");
          REQUIRE(got.actions[a] == want.actions[a]);
        }
        REQUIRE(got.status == want.status);
        REQUIRE(got.requeue_after == want.requeue_after);
        REQUIRE(got == want);
        ++compared;
        with_actions += got.actions.empty() ? 0 : 1;
        for (const auto& a : got.actions) ++by_kind[a.index()];
      }
    }
  }
  CHECK(compared == kKinds * static_cast<int>(kSeeds) * kEvents);
  // The histories are not trivial: many reconciles act, pods are created throughout, and every
  // kind of action (PodGroup updates, TensorBoards, elastic restarts included) is compared.
  CHECK(with_actions > compared / 30);
  CHECK(by_kind[0] > 1000);  // CreatePod
  for (std::size_t k = 0; k < by_kind.size(); ++k) {
    INFO("Action alternative " << k);
    CHECK(by_kind[k] > 0);
  }
}
