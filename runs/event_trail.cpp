#include "runs/event_trail.hpp"

#include <algorithm>

#include "analysis/outputs.hpp"

namespace t9k::runs {

void EventTrail::on_change(const model::TimedChange& c) {
  if (std::holds_alternative<model::JobLeft>(c.change)) return;  // bookkeeping, as events.jsonl
  if (const auto* sub = std::get_if<model::JobSubmitted>(&c.change)) {
    if (job_names_.size() <= sub->job) job_names_.resize(sub->job + 1);
    job_names_[sub->job] = sub->name;
  }
  lines_.push_back(analysis::change_json(c, &job_names_));
  if (lines_.size() > keep_) lines_.pop_front();
}

std::vector<std::string> EventTrail::of_job(const std::string& job, std::size_t n) const {
  // Job events name the job ("job":"ns/a"); pod events name the pod, which carries the job's
  // name ("pod":"ns/a-worker-0").
  const std::string as_job = "\"job\":\"" + job + "\"";
  const std::string as_pod = "\"pod\":\"" + job + "-";
  std::vector<std::string> out;
  for (auto it = lines_.rbegin(); it != lines_.rend() && out.size() < n; ++it) {
    if (it->find(as_job) != std::string::npos || it->find(as_pod) != std::string::npos)
      out.push_back(*it);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace t9k::runs
