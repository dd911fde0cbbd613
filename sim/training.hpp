// Training: what a job's processes do while its pods run. Work is measured in "one replica for
// one microsecond"; a segment runs while enough pods run (all of a rigid job, minReplicas of an
// elastic one), at the speed of the job's scaling model, after a restart (or rescale) overhead.
// Checkpoints save progress; a stop loses what came after the last one, charged to the cause
// that interrupted it (faults-and-validation §1.5, §11 Q8). Software failures strike running
// segments at the job's hazard; when the work is done the processes exit with the job's final
// code; pods left behind by a finished job exit after the rendezvous timeout, and so do the
// running pods of a rigid job one of whose members failed for good (a peer that never returns).
// A pod started after the work completed (a restart under Always, or after failing at the end)
// reruns the work from the last checkpoint on its own and exits again with the final code. A
// pod's scripted run (behaviour.replicas) ends it at its time with its code.
//
// Owns: per job, its behaviour, work, the running segment, committed progress and its streams
//       ("jobs/<key>", "jobs/<key>/failures").
// Handles: kTrainingDone, kSoftwareFailure, kOrphan, kPodRunEnd, kStranded.
// Offers: TrainingControl (sim/interfaces.hpp).
// Calls: Store (reads pods, publishes progress), PodLifecycle (processes exit), ReconcileQueue.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "kernel/chunked_pool.hpp"
#include "model/heap_optional.hpp"
#include "model/text.hpp"

#include "sim/common.hpp"
#include "sim/interfaces.hpp"
#include "sim/settings.hpp"

namespace t9k::sim {

class Store;

class Training final : public kernel::EventHandler, public TrainingControl {
 public:
  Training(const scenarios::Scenario& scenario, const WorldSettings& settings,
           kernel::Kernel& kernel, const kernel::RngStreams& streams, Store& store,
           PodLifecycle& pods, ReconcileQueue& reconciles);

  static constexpr EventKind kKinds[] = {kTrainingDone, kSoftwareFailure, kOrphan, kPodRunEnd,
                                         kStranded};
  void handle(const kernel::DispatchedEvent& event) override;

  // A stored job's behaviour; draws its work (run time at the submitted size, or work).
  void add_job(JobId job, scenarios::JobBehaviour behaviour);
  // Run time at the submitted size with no faults or waiting; 0 for work without end.
  std::int64_t ideal_run_us(JobId job) const;

  // TrainingControl
  void blame(JobId job, model::LossCause cause) override;
  void blame_if_unset(JobId job, model::LossCause cause) override;
  void evaluate(JobId job) override;
  void pod_started(JobId job, const std::string& pod_key) override;
  void restart(JobId job) override;
  void job_finished(JobId job) override;
  void forget(JobId job) override;
  TrainingState state(JobId job) const override;
  double speedup(JobId job, std::int32_t n) const override;
  // At the horizon: the running segments' progress since the last checkpoint counts as
  // productive (docs/outputs.md).
  void finish();

 private:
  // Small parts last in these records, one per job (issue 49).
  struct Segment {
    SimTime start{};  // segment start, overhead first
    SimDuration overhead{0};
    double rate = 0;             // work units per microsecond
    std::int64_t gpu_milli = 0;  // milli-GPU of the running pods
    double committed = 0;        // work units done and safe
    kernel::EventHandle done_ev;
    kernel::EventHandle fail_ev;
    std::int32_t n = 0;
    bool active = false;
    bool finished = false;
  };
  struct FailedMember {
    model::Text pod;  // key
    std::int32_t generation = 0;
  };
  struct JobTraining {
    // Without its run time and work (drawn into work_total); shared with equal ones
    // (recent_behaviours_).
    model::Shared<scenarios::JobBehaviour> behaviour;
    double work_total = 0;  // work units; +inf: runs until stopped
    // Work units saved by the last checkpoint before the work completed: a rerun starts there.
    double rerun_from = 0;
    Segment seg;
    FailedMember stranded_by;  // the member whose failure left the others waiting
    // Made at the first draw that needs one (draw, fail_rng): not for a job whose run time and
    // restart overhead are constants (a trace's, without faults), nor for a job still waiting.
    model::HeapOptional<kernel::Rng> rng;             // "jobs/<key>": work and restart overheads
    model::HeapOptional<kernel::Rng> fail_rng;        // "jobs/<key>/failures": software failures
    std::int32_t ref_n = 1;                           // the submitted size
    std::optional<model::LossCause> pending_cause;    // charged at the next stop
    std::optional<model::LossCause> last_stop_cause;  // why the previous segment ended
    bool orphan_scheduled = false;
    bool stranded_scheduled = false;
  };
  // Productive time of the running segment so far, split into what completed checkpoints saved
  // and what came after the last one (a checkpoint being written counts as not saved).
  struct Progress {
    std::int64_t kept_us = 0;
    std::int64_t since_checkpoint_us = 0;
    SimTime kept_from{}, kept_until{};  // when the kept part was made (checkpoint writes included)
  };

  // A pod's run ends: scripted (`after`), or a rerun of completed work.
  struct RunEnd {
    JobId job = 0;
    std::string pod;
    std::int32_t generation = 0;
    std::int32_t exit_code = 0;
  };

  void start(JobId job, std::int32_t n, std::int64_t gpu_milli);
  void run_end(const RunEnd& e);
  // A rigid job's running pods wait for a member that failed and will not be replaced.
  std::optional<FailedMember> stranded(JobId job) const;
  void check_stranded(JobId job);
  // The pods whose training processes exit when their peers are gone (DeepSpeed: the launcher
  // only; the other workers run sshd, §5).
  std::vector<std::string> training_pods(JobId job) const;
  void stop(JobId job, model::LossCause cause);
  Progress progress(const JobTraining& t) const;
  void schedule_software_failure(JobId job);
  void software_failure(JobId job);
  void done(JobId job);
  void orphans(JobId job);
  kernel::Rng& job_rng(JobId job);
  // A draw from the job's stream; a constant draws nothing and makes no stream.
  SimDuration draw(JobId job, const scenarios::DurationDistribution& d);
  kernel::Rng& fail_rng(JobId job);
  // A job's record; throws std::logic_error once the job was forgotten.
  JobTraining& at(JobId job);
  const JobTraining& at(JobId job) const;
  // Nullptr once forgotten (compacted): what reaches such a job changes nothing.
  JobTraining* find(JobId job);

  const scenarios::Scenario& sc_;
  const WorldSettings& st_;
  kernel::Kernel& k_;
  const kernel::RngStreams& streams_;
  Store& store_;
  PodLifecycle& pods_;
  ReconcileQueue& reconciles_;
  // By JobId (added only by submissions, between events): the slot of its record in pool_, or
  // kForgotten; a forgotten job's slot is reused, so memory follows the jobs in the system.
  static constexpr std::uint32_t kForgotten = ~std::uint32_t{0};
  std::vector<std::uint32_t> slot_;
  kernel::ChunkedPool<JobTraining> pool_;
  model::RecentValues<scenarios::JobBehaviour> recent_behaviours_;
  Parked<RunEnd> run_ends_;
};

}  // namespace t9k::sim
