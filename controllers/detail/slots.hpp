// Internal: what the stages of a reconcile share (controllers/reconcile.cpp): the replica slots
// and their outcomes, the verdict, and the helpers of each stage, by file:
//   conditions.cpp  the job's conditions (§1.2)
//   rules.cpp       restart policies and budgets (§2), success and failure rules (§3), the
//                   terminal cleanup (§6.2)
//   pods.cpp        the pods and the PodGroup a job asks for (§8.1, §10), replica phases (§1.3)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "controllers/engine.hpp"

namespace t9k::controllers::detail {

using model::ConditionStatus;
using model::DeletionReason;
using model::JobConditionType;
using model::JobPhase;
using model::JobStatus;
using model::Pod;
using model::PodPhase;
using model::ReplicaPhase;
using model::RestartPolicyType;

// Messages of the §1.2 status snapshots.
inline constexpr std::string_view kMsgAllRunning = "All pods are running normally.";
inline constexpr std::string_view kMsgSucceeded = "The job has finished successfully.";

// A condition text of static storage (a literal or one of the constants above): never copied.
inline model::Text fixed(std::string_view literal) { return model::Text::fixed(literal); }

// Where a replica slot stands after this step's decisions.
enum class Outcome {
  Missing,         // no pod: create one
  Terminating,     // pod on its way out (deletion_timestamp set): wait, then recreate
  Active,          // Pending, Running or Unknown
  SucceededFinal,  // exited 0 and will not be restarted
  FailedFinal,     // failed and will not be restarted ("failed" for rules, §3.1 [INFERRED])
  Restart,         // deleted now, to be replaced: a counted restart (§2.3, §11 Q4)
  Recreate,        // maxDuration pod deleted now and recreated, not counted (§11 Q12 option)
  BackoffWait,     // restart decided, waiting out the back-off delay (§11 Q5)
  ScaledDown,      // rank beyond the target: deleted now (§4.3)
};

struct Slot {
  std::size_t type_index = 0;
  std::int32_t rank = 0;
  std::string name;  // moved into the replica status once the actions are built
  const Pod* pod = nullptr;
  bool desired = false;  // rank < the type's desired replicas
  Outcome outcome = Outcome::Missing;
  std::int32_t prev_restarts = 0;
  std::int32_t restarts = 0;  // counted restarts of this rank (§11 Q3)
  bool create = false;
  std::optional<DeletionReason> del;
};

// A reconcile's scratch lists, inline for the usual job (a few replica types, a few pods): one
// allocation fewer each per reconcile, of the dozens a reconcile made.
using Slots = boost::container::small_vector<Slot, 4>;

struct Verdict {
  JobPhase phase = JobPhase::Failed;
  model::Text failed_reason;  // reason of the Failed condition
  model::Text message;
};

inline bool terminating(const Pod& p) { return p.deletion_timestamp.has_value(); }

// §1.3 `failed` includes "stopped by the system"; the world's contract gives every Failed pod an
// exit code and a missing one reads as SIGKILL.
inline std::int32_t exit_code_of(const Pod& p) { return p.exit_code.value_or(137); }

// ---- conditions (conditions.cpp) ----
model::JobCondition* find_condition(JobStatus& st, JobConditionType type);
// lastTransitionTime moves only when the status flips; conditions are kept in §1.2's order.
// Literal reasons and messages are passed as fixed(...): condition texts then never allocate.
void set_condition(JobStatus& st, JobConditionType type, ConditionStatus status, model::Text reason,
                   model::Text message, SimTime now);
// The conditions of a finished job (§1.2, UC snapshots).
void apply_terminal_conditions(JobStatus& st, const Verdict& v, SimTime now);

// ---- rules (rules.cpp) ----
// Does the policy ask for a new pod after this pod ended? (§2.2)
// Does the policy ask for a new pod after this pod ended? (§2.2)
bool policy_restarts(RestartPolicyType policy, const Pod& p, const ControllerOptions& opt);
// §11 Q5: the n-th restart of a rank waits min(cap, base * 2^(n-1)).
SimDuration backoff_delay(std::int32_t restarts_so_far, const ControllerOptions& opt);
// Pods deleted when the job ends: every unfinished one after its deadline, else as cleanUpPolicy
// says (§6.2).
// Deletions once the job is terminal (level-based: repeated every reconcile until done).
// §6.1, §11 Q6: on a deadline the unfinished pods are stopped whatever the policy;
// §6.2: All deletes every pod, Unfinished the Pending/Running/Unknown ones, None nothing.
void terminal_deletions(Slots& slots, model::CleanUpPolicy policy, bool deadline);
// GenericJob: failure rules, then success rules (§3.1, §11 Q2).
// §3.1 and §11 Q2 for GenericJob; failure is evaluated before success.
std::optional<Verdict> decide_generic(const JobView& v, const Slots& slots);
// PyTorchTrainingJob and DeepSpeedJob: the master (or worker 0) decides (§2.3, §5).
// §4.1, §5, §11 Q7 for PyTorchTrainingJob and DeepSpeedJob.
std::optional<Verdict> decide_master(const JobView& v, const Slots& slots,
                                     const ControllerOptions& opt, const Pod* backoff_limit_pod);

// ---- pods and the PodGroup (pods.cpp) ----
// "<job>-<type>-<rank>" (§2.3 [INFERRED] naming), as fmt::format("{}-{}-{}") writes it, in one
// exactly sized allocation.
std::string replica_name(std::string_view job, std::string_view type, std::int32_t rank);
bool running_now(const Slot& s);
ReplicaPhase replica_phase(const Slot& s);
void fill_container_status(std::vector<model::ContainerStatus>& out, const Slot& s,
                           const JobView& v);
// The pod of a replica type, without what depends on the rank (metadata.name and rank: see
// name_pod). Every rank's pod of a type is the same otherwise, so a reconcile builds this once per
// type and copies it. Built into `p`, a default Pod where it is to stay (a Pod is large: each move
// of one was a visible share of a reconcile). `owners`: the job, as its reconcile shares it among
// the objects it makes.
void make_pod(Pod& p, const JobView& v, const TypeView& t, const model::OwnerReferences& owners,
              bool resumed);
// The rank's part of a pod built by make_pod. `name` is the slot's "<job>-<type>-<rank>" (and a
// GenericJob's pod's genericjob-replica label, §10, implied: model::pod_labels).
void name_pod(Pod& p, const std::string& name, std::int32_t rank);
model::PodGroupSpec desired_pod_group_spec(const JobView& v);
// have == desired_pod_group_spec(v) with have's topologyPolicy kept (it is not the controller's),
// compared in place: this runs on every reconcile of a T9k-scheduled job and nearly always holds.
bool pod_group_spec_is_current(const model::PodGroupSpec& have, const JobView& v);

}  // namespace t9k::controllers::detail
