// The world: the only code that mutates simulation state (design.md). It owns the kernel, the
// object store (jobs, pods, PodGroups, queues, nodes), the kubelet and workload models and the
// fault injector; it drives the controllers (plugins behind controllers::Controller) and the
// scheduler (scheduler::Scheduler) and applies their decisions; it publishes every change.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "controllers/controller.hpp"
#include "model/change.hpp"
#include "model/cluster.hpp"
#include "model/topology.hpp"
#include "scenarios/format/scenario.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/snapshot.hpp"
#include "sim/faults.hpp"
#include "sim/kernel/kernel.hpp"
#include "sim/kernel/random.hpp"

namespace t9k::sim {

using kernel::SimDuration;
using kernel::SimTime;

// Thrown when a run breaks one of the invariants (issue 6 §8); the message names the first
// offending event.
class InvariantViolation : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown for a scenario the world cannot run (unknown option, fault profile, ...). Maps to
// exit code 2.
class ScenarioError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// How a job's expectedReplicas evolves (issue 6 §5).
enum class ElasticPolicy { Fixed, Greedy };

struct WorldSettings {
  controllers::ControllerOptions controller_options;
  scheduler::SchedulerOptions scheduler_options;
  SimDuration scheduling_latency = kernel::seconds(1);  // change -> scheduling cycle
  // After a job reaches a terminal phase, its remaining training pods lose their peers and exit
  // with code 1 after this long (torchrun's rendezvous timeout, 900 s by default). DeepSpeed
  // workers other than worker-0 run sshd and never exit (§5).
  SimDuration orphan_timeout = kernel::seconds(900);
  ElasticPolicy elastic_policy = ElasticPolicy::Fixed;
  SimDuration elastic_policy_period = kernel::minutes(5);  // greedy re-evaluation
  FaultProfile faults;
  SimDuration detection_delay = kernel::seconds(340);  // §11 Q13: 40 s + 300 s
};

// Reads scenario.controllers.options, scheduler.options and faults into typed settings.
// Throws ScenarioError naming the option, what was found and what is allowed.
WorldSettings settings_from_scenario(const scenarios::Scenario& scenario);

struct JobOutcome {
  std::string name;
  model::JobKind kind;
  std::optional<model::JobPhase> phase;  // unset: rejected or never reconciled
  std::string reason;
  std::string message;
  bool rejected = false;
  std::int32_t restarts = 0;
  std::int32_t backoff_count = 0;
};

class World {
 public:
  using Sink = std::function<void(const model::TimedChange&)>;

  World(const scenarios::Scenario& scenario, std::uint64_t replication, Sink sink);
  World(const scenarios::Scenario& scenario, std::uint64_t replication, Sink sink,
        WorldSettings settings);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Runs until the scenario's horizon. Throws InvariantViolation. `progress`, when given, is
  // called with the fraction of simulated time done (in 1 % steps); it does not change the run.
  void run(const std::function<void(double)>& progress = {});

  SimTime now() const;
  std::uint64_t fingerprint() const;
  std::uint64_t events_dispatched() const;
  std::vector<JobOutcome> outcomes() const;
  const model::Job* find_job(const std::string& name) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace t9k::sim
