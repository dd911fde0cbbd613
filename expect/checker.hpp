// The `expect` block checked against a run (t9ksim run --check, t9ksim test): job outcomes and
// counters, metric bounds, and (from the change feed, which the checker watches) when each job
// reached each phase, each pod of a rank by generation, and ordered event sequences. A mismatch
// is one message naming the expect path, what was expected and observed, and, for a job, the
// simulated time and the job's last events (docs/regression-testing.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/change.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/store.hpp"

namespace t9k::expect {

class ExpectationChecker {
 public:
  ExpectationChecker(const scenarios::Expectations& expect, std::string default_namespace);
  // Every change of the run, in order (chained after the recorder's sink).
  void on_change(const model::TimedChange& change);
  // One message per mismatch; empty: every expectation met.
  // `objects`: the run's final objects (World::objects), needed when a job expectation has fields.
  std::vector<std::string> check(const std::vector<sim::JobOutcome>& outcomes,
                                 const std::map<std::string, double>& metrics,
                                 const std::vector<scenarios::Object>& objects = {}) const;
  // Whether the checks read final objects (the run must then keep finished jobs).
  bool needs_objects() const;

 private:
  // A change as the checks and the messages see it (names without the default namespace).
  struct Event {
    model::SimTime t{};
    std::string type;
    std::string job;
    std::string pod;
    std::string phase;
    std::string reason;
    std::string node;
    std::optional<std::int32_t> exit_code;
    std::string describe() const;
  };
  // One pod (a generation of a rank) as the feed saw it.
  struct PodRecord {
    std::string phase = "Pending";
    std::optional<std::int32_t> exit_code;
    std::string deletion_reason;
  };
  struct JobRecord {
    std::string name;
    std::map<std::string, model::SimTime> first_at;  // phase -> first time
    // (type, rank) -> its pods by generation
    std::map<std::pair<std::string, std::int32_t>, std::vector<PodRecord>> pods;
    std::vector<std::size_t> events;  // indexes into events_
  };

  void check_job(std::size_t i, const std::vector<sim::JobOutcome>& outcomes,
                 const std::vector<scenarios::Object>& objects,
                 std::vector<std::string>& diff) const;
  void check_pods(const scenarios::JobExpectation& e, const JobRecord& job, const std::string& path,
                  const std::string& history, std::vector<std::string>& diff) const;
  void check_metrics(const std::map<std::string, double>& metrics,
                     std::vector<std::string>& diff) const;
  // Expected events in order, others allowed between.
  void check_events(std::vector<std::string>& diff) const;
  std::string short_name(const std::string& key) const;
  PodRecord* pod_record(JobRecord& job, const std::string& pod_key);
  std::string recent(const JobRecord& job, std::size_t n) const;

  const scenarios::Expectations& expect_;
  std::string ns_prefix_;  // "<default namespace>/"
  std::vector<Event> events_;
  std::vector<JobRecord> jobs_;  // by JobId
  std::map<std::string, std::pair<model::JobId, std::pair<std::string, std::int32_t>>>
      pod_slots_;  // pod key -> slot
};

}  // namespace t9k::expect
