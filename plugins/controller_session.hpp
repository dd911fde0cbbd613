// One controller plugin's session, shared by the kinds it serves: reconciles over version 1 (one
// request per reconcile, the whole job each time) or version 2 (docs/protocol-v2.md §2): every
// reconcile due at one instant in one request, and of each job only what changed since the
// plugin last saw it. For version 2 it keeps, per job, what the plugin keeps (what was sent, and
// the status the plugin returned), and the answers prepared for the reconciles still to come at
// this instant; an answer is used only for the very input it was computed from.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "controllers/controller.hpp"
#include "plugins/client.hpp"
#include "protocol/v2.hpp"

namespace t9k::plugins {

class ControllerSession {
 public:
  // `kinds`: the names of the kinds it serves ("GenericJob", or a kind of its own, which it
  // must declare at initialize: model::PluginKindRule).
  ControllerSession(std::shared_ptr<Client> client, std::vector<std::string> kinds);

  int version() const { return client_->version(); }
  const std::string& name() const { return client_->name(); }
  // Version 2: asks the plugin, in one request, for every reconcile of `due` of a kind it
  // serves that has no answer yet.
  void prepare(std::span<const controllers::ReconcileInput> due);
  // The plugin's answer for `in`, checked (checks.hpp).
  controllers::ReconcileResult reconcile(const controllers::ReconcileInput& in);
  void forget(std::string_view uid);
  // The rule it declared at initialize for the kind of `job` (throws PluginError when none).
  const model::PluginKindRule& rule(const model::PluginJob& job) const;

 private:
  // What the plugin keeps of one job: what it was sent, and the status it holds.
  struct Kept {
    model::Job spec;  // status cleared
    model::JobStatus status;
    std::vector<model::Pod> pods;
    std::optional<model::PodGroup> pod_group;
    std::optional<controllers::TensorBoardObservation> tensorboard;
  };
  struct Prepared {
    model::SimTime now{};
    model::JobStatus status_before;  // the job's status the answer was computed from
    protocol::JobAnswer answer;
    bool certain = false;  // the reconcile made right after prepare(): its input cannot change
  };

  controllers::ReconcileResult reconcile_v1(const controllers::ReconcileInput& in);
  bool serves(const controllers::ReconcileInput& in) const;
  // The update that brings what the plugin keeps to `in` (which it then keeps).
  protocol::JobUpdate update(const controllers::ReconcileInput& in, bool resync);
  // False when the pods cannot be sent as a change (their order would differ): resync then.
  bool update_pods(const controllers::ReconcileInput& in, Kept& kept, protocol::JobUpdate& u);
  bool unchanged(const controllers::ReconcileInput& in, const Kept& kept,
                 const model::JobStatus& status_before) const;
  // Sends the inputs in one request (and the jobs that ask for a resync in a second one) and
  // returns their answers, in order.
  std::vector<protocol::JobAnswer> send(std::span<const controllers::ReconcileInput* const> in);
  std::vector<protocol::JobAnswer> exchange(std::span<const controllers::ReconcileInput* const> in,
                                            bool resync);

  std::shared_ptr<Client> client_;
  // The rule of a kind of its own, or nullptr.
  const model::PluginKindRule* rule_of(const model::Job& job) const;
  // A status it wrote for a job of its own kind, completed by the kind's rule.
  void read_status(const model::Job& job, model::SimTime now, model::JobStatus& status,
                   const std::string& who) const;

  std::vector<std::string> kinds_;
  protocol::JobEncoder v1_jobs_;  // version 1: each job's spec JSON while unchanged
  std::map<std::string, Kept, std::less<>> kept_;
  std::map<std::string, Prepared, std::less<>> prepared_;
  std::vector<std::string> forget_;  // uids to tell the plugin to forget, with the next request
};

}  // namespace t9k::plugins
