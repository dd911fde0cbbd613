#include "plugins/differential.hpp"

#include <fmt/format.h>

#include "protocol/protocol.hpp"

namespace t9k::plugins {

namespace {

std::string describe(const protocol::Difference& d, const std::string& test,
                     const std::string& reference) {
  return fmt::format("{}\n  {}: {}\n  {}: {}", d.path, test, d.a, reference, d.b);
}

}  // namespace

DifferentialController::DifferentialController(std::unique_ptr<controllers::Controller> under_test,
                                               std::string test_name,
                                               std::unique_ptr<controllers::Controller> reference,
                                               std::string reference_name)
    : test_(std::move(under_test)),
      test_name_(std::move(test_name)),
      reference_(std::move(reference)),
      reference_name_(std::move(reference_name)) {}

void DifferentialController::prepare(std::span<const controllers::ReconcileInput> due) const {
  if (test_->prepares()) test_->prepare(due);
  if (reference_->prepares()) reference_->prepare(due);
}

void DifferentialController::forget(std::string_view uid) const {
  test_->forget(uid);
  reference_->forget(uid);
}

controllers::ReconcileResult DifferentialController::reconcile(
    const controllers::ReconcileInput& in) const {
  controllers::ReconcileResult answer = test_->reconcile(in);
  controllers::ReconcileResult expected = reference_->reconcile(in);
  // What a controller records as events is its own (the built-in ones record none): not compared.
  expected.events = answer.events;
  if (answer == expected) return answer;
  // Compared as a plugin can say them: the answers as version 1 writes them (whole statuses). A
  // built-in reference's answer may hold what the wire does not carry (a PodGroup's creation
  // order, which the world keeps from the stored one anyway): not a difference.
  const std::string a = protocol::reconcile_result(answer);
  const std::string b = protocol::reconcile_result(expected);
  if (a == b) return answer;
  const auto d = protocol::first_difference(a, b, "result");
  const std::string job = model::object_key(model::metadata_of(in.job));
  throw Divergence(fmt::format("{} diverged from {} on job {} at t={} s: {}", test_name_,
                               reference_name_, job, kernel::format_seconds(in.now),
                               d ? describe(*d, test_name_, reference_name_)
                                 : "the answers differ in a way their JSON does not show"),
                   job);
}

DifferentialPolicy::DifferentialPolicy(std::unique_ptr<policies::ElasticPolicy> under_test,
                                       std::unique_ptr<policies::ElasticPolicy> reference)
    : test_(std::move(under_test)), reference_(std::move(reference)) {}

policies::ElasticDecisions DifferentialPolicy::decide(const policies::ElasticObservation& o) const {
  policies::ElasticDecisions answer =
      test_->decides() ? test_->decide(o) : policies::ElasticDecisions{};
  const policies::ElasticDecisions expected =
      reference_->decides() ? reference_->decide(o) : policies::ElasticDecisions{};
  if (answer == expected) return answer;
  const std::string a = protocol::decide_result(answer, o);
  const std::string b = protocol::decide_result(expected, o);
  if (a == b) return answer;
  const auto d = protocol::first_difference(a, b, "result");
  const std::string test = fmt::format("elastic policy {}", test_->name());
  const std::string reference = fmt::format("the reference {}", reference_->name());
  throw Divergence(fmt::format("{} diverged from {} at t={} s: {}", test, reference,
                               kernel::format_seconds(o.now),
                               d ? describe(*d, test, reference)
                                 : "the answers differ in a way their JSON does not show"),
                   "");
}

}  // namespace t9k::plugins
