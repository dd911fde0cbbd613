// The world's typed settings: the scenario's free-form option maps (controllers.options,
// scheduler.options) and fault section read once, with every option spelled one way.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>

#include "controllers/controller.hpp"
#include "kernel/time.hpp"
#include "policies/elastic.hpp"
#include "scenarios/format/scenario.hpp"
#include "scheduler/scheduler.hpp"
#include "sim/fault_profiles.hpp"

namespace t9k::sim {

// Thrown for a scenario the world cannot run (unknown option, fault profile, ...). Maps to
// exit code 2.
class ScenarioError : public std::invalid_argument {
 public:
  struct Problem {
    std::string path;  // spec.scheduler.options.backfill
    std::string message;
  };
  using std::invalid_argument::invalid_argument;
  // About one field of the scenario (spec.scheduler.options.backfill): what() is "path: message",
  // and a command can point at the field's line (Scenario::option_marks).
  ScenarioError(std::string path, const std::string& message)
      : ScenarioError(std::vector<Problem>{{std::move(path), message}}) {}
  // About several fields at once (every problem of the scheduler's options): what() joins them.
  explicit ScenarioError(std::vector<Problem> problems);
  const std::string& path() const;     // the first field's; empty when about no one field
  const std::string& message() const;  // the first field's, without the path
  const std::vector<Problem>& problems() const {
    return problems_;
  }  // empty when about no one field
 private:
  std::vector<Problem> problems_;
};

// Controllers and the elastic policy in plugin processes (docs/plugins.md).
struct PluginSettings {
  std::vector<scenarios::ControllerPlugin> controllers;  // at most one per kind
  std::optional<scenarios::PluginSpec> elastic_policy;
  std::string log_dir;  // each plugin's stderr goes to <log_dir>/<name>.log; empty: discarded
  std::string simulator_version = "unknown";  // what initialize tells plugins
  // Differential testing (--reference, docs/plugins.md): what a plugin's answers are compared
  // with, for the kinds and the policy that run in a plugin. Without a plugin: the built-in code.
  struct Reference {
    std::optional<scenarios::PluginSpec> plugin;
  };
  std::map<model::JobKind, Reference> controller_references;
  std::optional<Reference> policy_reference;
};

struct WorldSettings {
  controllers::ControllerOptions controller_options;
  // Outputs that cost time or memory, set by the command line, never by the scenario:
  bool publish_job_status = false;  // JobStatusChanged on the change feed (t9ksim run --events)
  bool keep_finished_jobs =
      false;                   // finished jobs keep their objects for World::objects() (--objects)
  bool keep_outcomes = false;  // finished jobs keep their outcome for World::outcomes() (--check)
  scheduler::SchedulerOptions scheduler_options;
  kernel::SimDuration scheduling_latency = kernel::seconds(1);  // change -> scheduling cycle
  // After a job reaches a terminal phase, its remaining training pods lose their peers and exit
  // with code 1 after this long (torchrun's rendezvous timeout, 900 s by default). DeepSpeed
  // workers other than worker-0 run sshd and never exit (§5).
  kernel::SimDuration orphan_timeout = kernel::seconds(900);
  // Who sets elastic jobs' expectedReplicas: a built-in policy (policies/elastic.hpp), decided
  // every period and when an elastic job starts or ends.
  std::string elastic_policy = "fixed";
  kernel::SimDuration elastic_policy_period = kernel::minutes(5);
  policies::PolicyOptions policy_options{kernel::minutes(10), kernel::minutes(2)};
  PluginSettings plugins;
  FaultProfile faults;
  // Without faults.detectionDelay (drawn per failure by the kubelet): §11 Q13, 40 s + 300 s.
  kernel::SimDuration detection_delay = kernel::seconds(340);
};

// Reads scenario.controllers.options, scheduler.options and faults into typed settings.
// Throws ScenarioError naming the option, what was found and what is allowed.
WorldSettings settings_from_scenario(const scenarios::Scenario& scenario);

}  // namespace t9k::sim
