// A controller and an elastic policy that live in a plugin process: the simulator's interfaces
// (controllers::Controller, policies::ElasticPolicy) over a Client. What a plugin answers is
// checked before the world sees it, so the world's invariants hold whatever it answers: pods of
// this job only, of its replica types and ranks; deletions and restarts of its own pods; phase
// transitions the job's lifecycle allows (§1.1); a PodGroup named after the job. A violation is
// a PluginError naming the plugin, the method, the job, the simulated time and the field.
#pragma once

#include <memory>
#include <string>

#include "controllers/controller.hpp"
#include "plugins/client.hpp"
#include "policies/elastic.hpp"

namespace t9k::plugins {

class PluginController : public controllers::Controller {
 public:
  PluginController(std::shared_ptr<Client> client, model::JobKind kind);
  std::string_view api_version() const override { return model::kBatchApiVersion; }
  std::string_view kind() const override { return kind_name_; }
  controllers::ReconcileResult reconcile(const controllers::ReconcileInput& input) const override;

 private:
  std::shared_ptr<Client> client_;
  model::JobKind kind_;
  std::string kind_name_;
  mutable protocol::JobEncoder jobs_;  // each job's spec JSON, kept while its spec is unchanged
};

class PluginPolicy : public policies::ElasticPolicy {
 public:
  explicit PluginPolicy(std::shared_ptr<Client> client);
  std::string_view name() const override { return name_; }
  bool decides() const override { return client_->hello().decides; }
  policies::ElasticDecisions decide(const policies::ElasticObservation& observation) const override;

 private:
  std::shared_ptr<Client> client_;
  std::string name_;
};

// The checks above, on their own (tests use them directly). Throws PluginError with `who`
// ("plugin x: reconcile of job default/a at t=3 s") before the field.
void check_reconcile_result(const controllers::ReconcileInput& input,
                            const controllers::ReconcileResult& result, const std::string& who);

}  // namespace t9k::plugins
