// The last events of a run, kept while a plugin is compared with a reference (differential
// testing): when they diverge, the message ends with the diverging job's last events, as
// events.jsonl would show them.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "model/change.hpp"

namespace t9k::runs {

class EventTrail {
 public:
  explicit EventTrail(std::size_t keep = 20000) : keep_(keep) {}
  void on_change(const model::TimedChange& change);
  // The last `n` kept events of the job (namespace/name) and its pods, oldest first.
  std::vector<std::string> of_job(const std::string& job, std::size_t n) const;

 private:
  std::size_t keep_;
  std::deque<std::string> lines_;
  std::vector<std::string> job_names_;  // by JobId, from JobSubmitted
};

}  // namespace t9k::runs
