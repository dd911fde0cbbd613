// The world: the simulated cluster as one explicit object (design.md). It owns the kernel and
// the components, one room per model (sim/README.md has the map), wires them and routes each
// event kind to the component that owns it. The components are the only code that mutates
// simulation state: they drive the controllers (plugins behind controllers::Controller) and the
// scheduler (scheduler::Scheduler), apply their decisions and publish every change.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/change.hpp"
#include "plugins/client.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/common.hpp"
#include "sim/settings.hpp"
#include "sim/store.hpp"

namespace t9k::sim {

class World {
 public:
  using Sink = std::function<void(const model::TimedChange&)>;

  // `scenario` must outlive the world. Its traces' data is read while the world is built (the
  // cluster a trace names, the cursors, which keep their own reference): the caller may let go
  // of it after.
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
  // Requests sent to plugin processes so far (docs/plugins.md); 0 when everything runs in process.
  std::uint64_t plugin_calls() const;
  // What crossed to and from each plugin (calls, bytes, time waited), in the order started.
  std::vector<plugins::PluginStats> plugin_stats() const;
  // Every job's outcome; needs WorldSettings::keep_outcomes once a job has finished (else throws
  // std::logic_error).
  std::vector<JobOutcome> outcomes() const;
  // The queues, jobs and PodGroups as the API would show them now (Store::objects); finished
  // jobs are there only when WorldSettings::keep_finished_jobs was set.
  std::vector<scenarios::Object> objects() const;
  const model::Job* find_job(const std::string& name) const;
  // What the run could not do as the scenario asked, for the command to print (an initial-state
  // job the scheduler placed because its recorded nodes could not take it).
  std::vector<std::string> notes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace t9k::sim
