// The job's conditions (§1.2): kept in §1.2's order, their transition times moved only when they
// flip.
#include "controllers/detail/slots.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace t9k::controllers::detail {

model::JobCondition* find_condition(JobStatus& st, JobConditionType type) {
  for (auto& c : st.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// lastTransitionTime moves only when the status flips; conditions are kept in §1.2's order.
// Literal reasons and messages are passed as fixed(...): condition texts then never allocate.
void set_condition(JobStatus& st, JobConditionType type, ConditionStatus status, model::Text reason,
                   model::Text message, SimTime now) {
  if (auto* c = find_condition(st, type)) {
    if (c->status != status) {
      c->status = status;
      c->last_transition_time = now;
    }
    c->reason = std::move(reason);
    c->message = std::move(message);
    return;
  }
  model::JobCondition c{type, status, now, std::move(reason), std::move(message)};
  auto it = std::find_if(st.conditions.begin(), st.conditions.end(),
                         [&](const model::JobCondition& x) { return x.type > type; });
  st.conditions.insert(it, std::move(c));
}

void apply_terminal_conditions(JobStatus& st, const Verdict& v,
                               SimTime now) {  // §1.2, UC snapshots
  if (v.phase == JobPhase::Succeeded) {
    set_condition(st, JobConditionType::Running, ConditionStatus::False, fixed("Succeeded"),
                  fixed(kMsgSucceeded), now);
    set_condition(st, JobConditionType::Completed, ConditionStatus::True, fixed("Succeeded"),
                  fixed(kMsgSucceeded), now);
    set_condition(st, JobConditionType::Failed, ConditionStatus::False, fixed("Succeeded"),
                  fixed(kMsgSucceeded), now);
  } else {
    set_condition(st, JobConditionType::Running, ConditionStatus::False, fixed("Failed"), v.message,
                  now);
    set_condition(st, JobConditionType::Completed, ConditionStatus::True, fixed("Failed"),
                  v.message, now);
    set_condition(st, JobConditionType::Failed, ConditionStatus::True, v.failed_reason, v.message,
                  now);
  }
}

}  // namespace t9k::controllers::detail
