// Differential testing (docs/plugins.md §5 "Checking a plugin against a reference"): a plugin
// under test and a reference (the built-in code, or another plugin such as the last release of
// the same controller) answer every observation in lock-step; the first answer that differs stops
// the run with a Divergence naming the job, the simulated time, the JSON path and both values.
// The world goes on with the answer of the plugin under test, which both have agreed on so far.
#pragma once

#include <memory>
#include <string>

#include "controllers/controller.hpp"
#include "plugins/process.hpp"
#include "policies/elastic.hpp"

namespace t9k::plugins {

// The plugin under test answered differently from its reference.
class Divergence : public PluginError {
 public:
  Divergence(const std::string& message, std::string job)
      : PluginError(message), job_(std::move(job)) {}
  // The job (namespace/name) whose answer differed; empty for an elastic policy's decision.
  const std::string& job() const { return job_; }

 private:
  std::string job_;
};

class DifferentialController : public controllers::Controller {
 public:
  // `test_name`, `reference_name`: how messages call them ("plugin genericjob-controller",
  // "the built-in controller").
  DifferentialController(std::unique_ptr<controllers::Controller> under_test, std::string test_name,
                         std::unique_ptr<controllers::Controller> reference,
                         std::string reference_name);
  std::string_view api_version() const override { return test_->api_version(); }
  std::string_view kind() const override { return test_->kind(); }
  controllers::ReconcileResult reconcile(const controllers::ReconcileInput& input) const override;
  bool prepares() const override { return test_->prepares() || reference_->prepares(); }
  void prepare(std::span<const controllers::ReconcileInput> due) const override;
  void forget(std::string_view uid) const override;

 private:
  std::unique_ptr<controllers::Controller> test_;
  std::string test_name_;
  std::unique_ptr<controllers::Controller> reference_;
  std::string reference_name_;
};

class DifferentialPolicy : public policies::ElasticPolicy {
 public:
  DifferentialPolicy(std::unique_ptr<policies::ElasticPolicy> under_test,
                     std::unique_ptr<policies::ElasticPolicy> reference);
  std::string_view name() const override { return test_->name(); }
  // Both are asked whenever either decides (a reference that never decides answers nothing).
  bool decides() const override { return test_->decides() || reference_->decides(); }
  bool wants_details() const override {
    return test_->wants_details() || reference_->wants_details();
  }
  policies::ElasticDecisions decide(const policies::ElasticObservation& observation) const override;

 private:
  std::unique_ptr<policies::ElasticPolicy> test_;
  std::unique_ptr<policies::ElasticPolicy> reference_;
};

}  // namespace t9k::plugins
