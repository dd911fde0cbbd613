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

constexpr std::uint64_t kSeeds = 60;
constexpr int kEvents = 120;

const Controller& reference_for(const model::Job& job) {
  static const reference::GenericJobController generic;
  static const reference::PyTorchTrainingJobController pytorch;
  static const reference::DeepSpeedJobController deepspeed;
  switch (model::kind_of(job)) {
    case model::JobKind::GenericJob:
      return generic;
    case model::JobKind::PyTorchTrainingJob:
      return pytorch;
    case model::JobKind::DeepSpeedJob:
      break;
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

        const ReconcileInput in{w.job,         w.pods, w.pod_group ? &*w.pod_group : nullptr,
                                w.tensorboard, w.now,  w.options};
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
