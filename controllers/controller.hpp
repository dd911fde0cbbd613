// The job-controller plugin boundary (design.md "The controller plugin boundary").
//
// A controller is a pure reconcile step: (job, the pods it owns, its PodGroup, now, options) ->
// (actions, new status, requeue-after). It is level-based: it decides from what it observes and
// from its own status, never from "what just happened". It never reads a wall clock, never
// mutates its inputs and never iterates an unordered container to decide.
//
// ---- The world's contract (what sim/ must do for these controllers to be correct) ----
//  1. Reconcile a job after any change to the job or to an object it owns (pods, PodGroup,
//     TensorBoard) and when requeue_after elapses. Apply every action of one reconcile, in order,
//     before the next reconcile of the same job, and store result.status as the job's status.
//  2. Pass every pod it still stores for the job: running ones, terminated (Succeeded/Failed) ones
//     (they stay until a controller deletes them), and terminating ones (deletion_timestamp set,
//     on their way out). A pod the world or scheduler deletes (preemption, drain, user) gets
//     deletion_timestamp + deletion_reason and disappears after its grace period; the controller
//     then recreates the missing rank. That is not a counted restart (§11 Q4).
//  3. DeletePod: set deletion_timestamp and deletion_reason; a terminated pod may vanish at once,
//     a live one after its grace period. CreatePod: fill metadata.uid and creation_timestamp and
//     set `generation` to one more than the last pod of that name (0 for the first).
//     A pod name is never reused while a pod of that name is still stored.
//  4. A pod on a failed node turns Unknown, then Failed with exit code 137 (counts as a failure,
//     §11 Q4, Q13). Every Failed pod carries an exit code; a missing one is read as 137 ("stopped
//     by the system", §1.3 `failed`).
//  5. A pod removed because of queue maxDuration is kept and reported as a Failed pod with
//     deletion_reason == MaxDuration and no deletion_timestamp (§11 Q12); the controller decides
//     (default: permanent replica failure; option: delete and recreate).
//  6. Pods with `debug` set never finish on their own (§7.1). torchrun's maxRestarts are in-pod
//     restarts: the pod stays Running and the controller never sees them (§4.2).
//  7. RestartTraining: the listed pods keep running but their training processes restart; the
//     world charges the progress lost since the last checkpoint. It is not a pod restart and does
//     not count against backoffLimit (§4.3, §5, §11 Q8).
//  8. CreatePodGroup carries creation_timestamp = now; UpdatePodGroup carries the observed
//     object's metadata unchanged (the PodGroup keeps its creation time across pause/resume,
//     §11 Q20). The world must not delete the PodGroup while the job exists.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/cluster.hpp"
#include "model/jobs.hpp"
#include "model/scheduling.hpp"

namespace t9k::controllers {

using model::SimDuration;
using model::SimTime;

// Every gap decision of spec §11 that has a documented alternative, by name (docs/controllers.md).
struct ControllerOptions {
  // §2.2: exit codes ExitCode treats as retryable. T9kList: the documented {130,137,138,143}
  // (the set below); KubeflowAtLeast128: any code >= 128 ([CONV-KF]).
  enum class RetryableExitCodes { T9kList, KubeflowAtLeast128 };
  RetryableExitCodes retryable_exit_codes = RetryableExitCodes::T9kList;
  std::vector<std::int32_t> t9k_retryable_exit_codes{130, 137, 138, 143};

  // §2.3, §11 Q4: MasterFailsAgain (T9k): restarts allowed while backoffCount < backoffLimit;
  // afterwards a failure is permanent (the job fails when the master fails again).
  // KubeflowReachLimit: the job fails as soon as the summed restarts reach backoffLimit
  // (Kubeflow PastBackoffLimit: restarts >= limit).
  enum class BackoffLimitRule { MasterFailsAgain, KubeflowReachLimit };
  BackoffLimitRule backoff_limit_rule = BackoffLimitRule::MasterFailsAgain;

  // faults-and-validation §1.4 (kubeflow/training-operator#2045): Kubeflow's ExitCode policy
  // restarts retryable exits without honouring (or counting against) backoffLimit.
  bool exit_code_ignores_backoff_limit = false;

  // §11 Q5: delay before a failed pod is replaced: off (immediate). When on, the n-th restart of a
  // rank waits min(cap, base * 2^(n-1)) after the pod finished (Kubernetes: 10 s doubling to 6
  // min).
  bool restart_backoff = false;
  SimDuration restart_backoff_base = std::chrono::seconds(10);
  SimDuration restart_backoff_cap = std::chrono::seconds(360);

  // §11 Q7: AnyReplica (Kubeflow): any replica failing permanently fails a PyTorch/DeepSpeed job.
  // MasterOnly: only the master's permanent failure does.
  enum class PermanentFailureScope { AnyReplica, MasterOnly };
  PermanentFailureScope permanent_failure_scope = PermanentFailureScope::AnyReplica;

  // §11 Q12: a pod removed for queue maxDuration is a permanent replica failure (FailReplica) or
  // a deletion the controller recreates without counting a restart (Recreate).
  enum class MaxDurationHandling { FailReplica, Recreate };
  MaxDurationHandling max_duration = MaxDurationHandling::FailReplica;

  // §11 Q1: Pending/Resuming -> Running once all replica pods run (AllPodsRunning) or once the
  // master pod runs (MasterRunning, Kubeflow). Elastic jobs need minReplicas running pods.
  enum class RunningWhen { AllPodsRunning, MasterRunning };
  RunningWhen running_when = RunningWhen::AllPodsRunning;

  // §11 Q3: GenericJob restartPolicy.limit per replica (rank) or per replica type.
  enum class GenericLimitScope { PerReplica, PerType };
  GenericLimitScope generic_limit_scope = GenericLimitScope::PerReplica;

  // §4.3 [UNSPEC]: elastic success by the master (rank 0 of the first type, never scaled away) or,
  // as Kubeflow elastic does, by any replica succeeding.
  enum class ElasticSuccess { Master, AnyReplica };
  ElasticSuccess elastic_success = ElasticSuccess::Master;
};

// The observed TensorBoard dependent (§9), when it exists.
struct TensorBoardObservation {
  std::string uid;
  bool ready = false;
  bool operator==(const TensorBoardObservation&) const = default;
};

struct ReconcileInput {
  const model::Job& job;
  std::span<const model::Pod> pods;            // every pod the world stores for the job
  const model::PodGroup* pod_group = nullptr;  // the job's PodGroup, if it exists
  std::optional<TensorBoardObservation> tensorboard;
  SimTime now{};
  const ControllerOptions& options;
};

// ---- Actions ----

struct CreatePod {
  model::Pod pod;
  bool operator==(const CreatePod&) const = default;
};
struct DeletePod {
  std::string name;
  model::DeletionReason reason = model::DeletionReason::Cleanup;
  bool operator==(const DeletePod&) const = default;
};
struct CreatePodGroup {
  model::PodGroup pod_group;
  bool operator==(const CreatePodGroup&) const = default;
};
struct UpdatePodGroup {
  model::PodGroup pod_group;  // the observed object with a new spec; metadata unchanged (§11 Q20)
  bool operator==(const UpdatePodGroup&) const = default;
};
struct CreateTensorBoard {  // tensorstack.dev/v1beta1 TensorBoard named after the job (§9)
  std::string name;
  std::string namespace_;
  model::TensorBoardSpec spec;
  model::OwnerReference owner;
  bool operator==(const CreateTensorBoard&) const = default;
};
// An elastic membership change restarts the training processes of the listed (running) pods.
struct RestartTraining {
  std::vector<std::string> pods;
  std::int32_t replicas = 0;    // the new membership size (workers/nodes)
  std::int32_t world_size = 0;  // processes: replicas x slotsPerWorker (DeepSpeed), else replicas
  std::string reason;           // "ScaleUp" | "ScaleDown"
  bool operator==(const RestartTraining&) const = default;
};

using Action = std::variant<CreatePod, DeletePod, CreatePodGroup, UpdatePodGroup, CreateTensorBoard,
                            RestartTraining>;

// An event a controller recorded (a plugin's event recorder, docs/protocol.md §5 reconcile):
// written to events.jsonl and read by nothing else; differential tests leave it aside.
struct ControllerEvent {
  std::string type;  // "Normal" | "Warning", as the controller gave it
  std::string reason;
  std::string message;
  bool operator==(const ControllerEvent&) const = default;
};

struct ReconcileResult {
  std::vector<Action> actions;
  model::JobStatus status;  // the whole new status (the status patch)
  std::optional<SimDuration>
      requeue_after;  // reconcile again after this long, even if nothing changes
  std::vector<ControllerEvent> events;
  bool operator==(const ReconcileResult&) const = default;
};

// ---- Plugins ----

class Controller {
 public:
  virtual ~Controller() = default;
  virtual std::string_view api_version() const = 0;
  virtual std::string_view kind() const = 0;
  // Throws std::invalid_argument if input.job is not of this controller's kind.
  virtual ReconcileResult reconcile(const ReconcileInput& input) const = 0;

  // Hints from the world, for controllers in another process (docs/protocol-v2.md); the built-in
  // ones ignore them. `prepares()`: the world tells this controller, at the first reconcile of
  // an instant, every reconcile due at that instant (all kinds, in the order they will be made;
  // the inputs are valid during the call only). reconcile() is then still called for each, with
  // the input as it is then, and must answer for that input; the first is reconciled right after
  // this call, with this very input.
  virtual bool prepares() const { return false; }
  virtual void prepare(std::span<const ReconcileInput> due) const { (void)due; }
  // The job (by metadata.uid) will never be reconciled again.
  virtual void forget(std::string_view uid) const { (void)uid; }
  // A job of a kind only this controller knows (model::PluginJob), before the world stores it:
  // its replica specs read from its spec, by the rule the plugin declared. Throws
  // std::invalid_argument saying what is wrong with the job. The T9k kinds need nothing.
  virtual void complete(model::Job& job) const { (void)job; }
};

// An explicit, ordered registry keyed by (apiVersion, kind).
class Registry {
 public:
  // Throws std::invalid_argument on a duplicate (apiVersion, kind).
  void add(std::unique_ptr<Controller> controller);
  const Controller* find(std::string_view api_version, std::string_view kind) const;
  // Controllers in registration order.
  std::vector<const Controller*> controllers() const;

 private:
  std::vector<std::unique_ptr<Controller>> controllers_;
};

// GenericJob, PyTorchTrainingJob, DeepSpeedJob (batch.tensorstack.dev/v1beta1), in that order.
Registry make_default_registry();
// The built-in controller of one kind.
std::unique_ptr<Controller> make_builtin_controller(model::JobKind kind);

// The phase transition graph of §1.1 ([INFERRED] edges), with the edges §11 Q6 implies
// (the deadline fails a Pending or Resuming job) and a decision observed before the job reached
// Running (Pending/Resuming -> Succeeded/Failed). `from` unset = the job was just created.
// Terminal phases have no outgoing edges; a phase may always stay the same.
bool is_allowed_transition(std::optional<model::JobPhase> from, model::JobPhase to);

}  // namespace t9k::controllers
