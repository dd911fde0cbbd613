// A controller and an elastic policy that live in a plugin process: the simulator's interfaces
// (controllers::Controller, policies::ElasticPolicy) over a plugin session. What a plugin answers
// is checked before the world sees it (checks.hpp).
#pragma once

#include <memory>
#include <string>

#include "controllers/controller.hpp"
#include "plugins/client.hpp"
#include "plugins/controller_session.hpp"
#include "policies/elastic.hpp"
#include "protocol/v2.hpp"

namespace t9k::plugins {

// One kind of a controller plugin's session (a plugin may serve several kinds).
class PluginController : public controllers::Controller {
 public:
  // `api_version` and `kind`: "batch.tensorstack.dev/v1beta1" and a T9k kind's name, or a kind
  // of the plugin's own.
  PluginController(std::shared_ptr<ControllerSession> session, std::string api_version,
                   std::string kind);
  std::string_view api_version() const override { return api_version_; }
  std::string_view kind() const override { return kind_name_; }
  controllers::ReconcileResult reconcile(const controllers::ReconcileInput& input) const override;
  bool prepares() const override { return session_->version() == 2; }
  void prepare(std::span<const controllers::ReconcileInput> due) const override {
    session_->prepare(due);
  }
  void forget(std::string_view uid) const override { session_->forget(uid); }
  void complete(model::Job& job) const override;

 private:
  std::shared_ptr<ControllerSession> session_;
  std::string api_version_;
  std::string kind_name_;
};

class PluginPolicy : public policies::ElasticPolicy {
 public:
  explicit PluginPolicy(std::shared_ptr<Client> client);
  std::string_view name() const override { return name_; }
  bool decides() const override { return client_->hello().decides; }
  bool wants_details() const override { return client_->version() == 2; }
  policies::ElasticDecisions decide(const policies::ElasticObservation& observation) const override;

 private:
  std::shared_ptr<Client> client_;
  std::string name_;
  mutable protocol::ObservationEncoder observations_;  // version 2: what the plugin keeps
};

}  // namespace t9k::plugins
