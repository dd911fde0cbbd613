// Equivalence of the controllers with the recorded outputs of the implementation they replaced
// (recorded/equivalence.txt): for random pod-event histories (the property tests' generator,
// random_history.hpp) every reconcile must return what was recorded for the same input. A step is
// recorded as the hash of its ReconcileResult's exact JSON (protocol::reconcile_result: actions
// in order, status, requeue), one line per history. Besides the property tests' jobs the
// histories vary the options of docs/controllers.md, run modes (debug, resumeSpecs), templates
// (labels, annotations, init containers), TensorBoard and elastic PyTorch, so that every branch
// of the reconcile that builds strings or pods is compared.
//
// An intended behaviour change: re-record with
//   T9KSIM_RECORD_ORACLES=1 build/<dir>/tests/controllers/controllers_tests "Equivalence*"
// and explain the recording's diff in the commit message (tests/README.md, "Recorded outputs").
#include "protocol/protocol.hpp"
#include "random_history.hpp"
#include "support.hpp"
#include "tests/recording.hpp"

#include <array>
#include <random>
#include <sstream>

using namespace t9k::controllers;
using namespace t9k::controllers::testing;
namespace model = t9k::model;
using t9k::testing::Differences;
using t9k::testing::Recording;

namespace {

constexpr std::uint64_t kSeeds = 60;
constexpr int kEvents = 120;
constexpr const char* kKindNames[kKinds] = {"GenericJob", "PyTorchTrainingJob",
                                            "elastic DeepSpeedJob", "elastic PyTorch"};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

TEST_CASE("Equivalence: the controllers return what the replaced implementation returned") {
  Recording recording(T9KSIM_SOURCE_DIR "/tests/controllers/recorded/equivalence.txt",
                      "Recorded outputs of tests/controllers/equivalence_tests.cpp: per history\n"
                      "(kind, seed), the hash of each step's reconcile result, in step order.\n"
                      "Re-record with T9KSIM_RECORD_ORACLES=1 (tests/README.md); review the\n"
                      "diff (git diff --word-diff shows the steps that changed).");
  if (!recording.recording() && !recording.loaded()) FAIL(recording.unreadable());
  Differences differences;
  int compared = 0, with_actions = 0;
  std::array<int, std::variant_size_v<Action>> by_kind{};  // actions compared, by alternative
  for (int kind = 0; kind < kKinds; ++kind) {
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      const std::string history = "kind " + std::to_string(kind) + " seed " + std::to_string(seed);
      const std::string* line = recording.recording() ? nullptr : recording.find(history);
      if (!recording.recording() && line == nullptr) differences.add(history, "not recorded");
      const std::vector<std::string> recorded = line ? split(*line) : std::vector<std::string>{};
      std::string hashes;
      bool differs = line == nullptr;  // compare each history up to its first difference
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

        INFO("kind " << kind << " seed " << seed << " step " << i);
        const ReconcileResult& got = w.step();
        const std::string json = t9k::protocol::reconcile_result(got);
        const std::string hash = t9k::testing::hash_hex32(json);
        hashes += (i == 0 ? "" : " ") + hash;
        const auto at = static_cast<std::size_t>(i);
        if (!differs && (at >= recorded.size() || recorded[at] != hash)) {
          differs = true;
          differences.add(history + " step " + std::to_string(i) + " (" + kKindNames[kind] + ")",
                          "recorded hash " + (at < recorded.size() ? recorded[at] : "(none)") +
                              ", now " + hash + " for this result:\n" + json);
        }
        ++compared;
        with_actions += got.actions.empty() ? 0 : 1;
        for (const auto& a : got.actions) ++by_kind[a.index()];
      }
      if (!differs && recorded.size() != static_cast<std::size_t>(kEvents))
        differences.add(history, std::to_string(recorded.size()) + " steps recorded, " +
                                     std::to_string(kEvents) + " run");
      if (recording.recording()) recording.add(history, hashes);
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
  if (recording.recording()) {
    REQUIRE(recording.write());
    WARN("recorded " << recording.size() << " histories to " << recording.path());
    return;
  }
  CHECK(recording.size() == static_cast<std::size_t>(kKinds) * kSeeds);  // none left unchecked
  if (!differences.empty()) FAIL_CHECK(differences.report(recording));
}
