// The recorder: subscribes to the world's change feed (model/change.hpp) and turns it into the
// per-job rows, time series and headline metrics of a run, plus the accounting invariants that
// can only be checked from outside the world (GPU-seconds conservation, Little's law).
// It never reaches into the world.
//
// Units: GPU amounts are milli-GPU as on the feed (1 GPU = model::kGpuMilliPerGpu = 1000, so a pod
// sharing half a GPU holds 500), GPU-time is milli-GPU × µs, all exact integers; areas and sums
// that can exceed int64 are 128-bit. Outputs divide by 1000 (gpu_value, format_gpu_milli).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/costing.hpp"
#include "analysis/occupancy.hpp"
#include "model/change.hpp"
#include "model/heap_optional.hpp"

namespace t9k::analysis {

using model::Int128;
using model::OptionalTime;
using model::SimDuration;
using model::SimTime;

// Milli-GPU (or milli-GPU × µs) as GPUs (GPU-µs) in a double. A whole number of GPUs converts
// exactly as an integer count of GPUs did (so whole-GPU results print as before); a fraction
// divides by 1000.
double gpu_value(Int128 milli);
// Milli-GPU as the shortest exact decimal number of GPUs: 8000 -> "8", 500 -> "0.5",
// 1250 -> "1.25", 1 -> "0.001", -1500 -> "-1.5".
std::string format_gpu_milli(Int128 milli);
// Decimal text of a 128-bit integer.
std::string int128_to_string(Int128 v);

// GPU-time a job lost, by cause (model::LossCause order), in milli-GPU × µs: zero for each cause
// until the first loss, and then kept on the heap (most jobs lose nothing, and a row is kept for
// every job in the world: 112 bytes inline were a fifth of it; issue 49).
class LossesByCause {
 public:
  Int128 operator[](int cause) const {
    return by_cause_ ? (*by_cause_)[static_cast<std::size_t>(cause)] : 0;
  }
  void add(int cause, Int128 v) {
    if (!by_cause_) by_cause_.emplace();
    (*by_cause_)[static_cast<std::size_t>(cause)] += v;
  }
  const Int128* begin() const { return values().data(); }
  const Int128* end() const { return values().data() + model::kLossCauses; }

 private:
  using Values = std::array<Int128, model::kLossCauses>;
  const Values& values() const {
    static const Values kNone{};
    return by_cause_ ? *by_cause_ : kNone;
  }
  model::HeapOptional<Values> by_cause_;
};

// A name in 8 bytes, for a row's kind and phase (a JobRow is 256 bytes with two, 272 with the
// texts, which its deque kept one to a block: issue 49): a NUL-terminated name that lives as long
// as the program, a literal (model::to_string's) or one that model::interned_kind keeps.
class StaticName {
 public:
  StaticName() = default;
  StaticName(std::string_view lasting)  // NOLINT: implicit, as the view it keeps
      : name_(lasting.data()) {}
  operator std::string_view() const { return name_; }  // NOLINT: read as a view
  bool empty() const { return *name_ == '\0'; }
  friend bool operator==(StaticName a, std::string_view b) { return std::string_view(a) == b; }

 private:
  const char* name_ = "";
};

// One row of jobs.csv (docs/outputs.md). A row is kept for every job in the world (and while
// an older job is: rows leave in JobId order), so its kind and phase are StaticNames, its other
// texts model::Text (16 bytes; reasons share the condition's text), and its small fields sit
// together.
struct JobRow {
  model::JobId id = 0;
  std::int32_t priority = 0;
  model::Text name;
  StaticName kind = std::string_view("GenericJob");
  model::Text queue;
  std::int32_t replicas = 0;
  std::int32_t restarts = 0;
  std::int64_t gpu_milli = 0;  // milli-GPU requested at submission, all pods
  SimTime submit{};
  OptionalTime first_running;
  OptionalTime end;
  StaticName phase;  // final phase, "Rejected", or the phase at the horizon
  model::Text reason;
  std::int32_t backoff_count = 0;
  std::int32_t preemptions = 0;  // pods deleted by preemption
  std::int64_t ideal_run_us = 0;
  // GPU-time in milli-GPU × µs (1 GPU-µs = 1000).
  Int128 allocated_gpu_milli_us = 0;
  Int128 productive_gpu_milli_us = 0;
  LossesByCause lost_gpu_milli_us;
  // With prices or power (analysis/costing.hpp): what its GPU-time cost, and the energy of its
  // share of the nodes at full draw (kWh).
  double cost = 0;
  double energy_kwh = 0;
  std::int32_t pods_failed = 0;  // pods that terminated Failed
  bool elastic = false;
  // Why it waited (docs/outputs.md "Why jobs waited"): the last reason the scheduler gave while
  // none of its pods was bound, and the time it waited under each cause (µs).
  std::optional<model::PendingCause> pending_cause;
  model::Text pending_reason;
  std::int64_t pending_us[model::kPendingCauses] = {};
  Int128 idle_gpu_milli_us() const;
};
// Two to a deque's 512-byte block, which the allocator serves exactly (272 bytes took a block
// each, served as 288 by tcmalloc, 320 by jemalloc).
static_assert(sizeof(JobRow) == 256);

// Time-averaged values over one bucket of a time series; GPUs, not milli-GPU.
struct SeriesPoint {
  double allocated_gpus = 0;
  double productive_gpus = 0;
  double capacity_gpus = 0;  // allocatable GPUs of ready nodes (cluster scope only)
  double pending_jobs = 0;   // submitted, not finished, not Running
  double running_jobs = 0;   // phase Running
  // Jobs waiting with none of their pods bound, by the cause the scheduler last gave
  // (model::PendingCause order).
  double pending_by_cause[model::kPendingCauses] = {};
};

// The metric-name spelling of a pending cause: "quota", "capacity", "queue_order"...
std::string pending_cause_metric(model::PendingCause c);

struct FaultRecord {
  SimTime time{};
  std::string node;
  std::string cause;
  bool down = true;  // false: repair / back in service
};

// Metric groups (docs/outputs.md "Metrics by group"): summary.json has each headline metric for
// the cluster as `NAME` and for each group as `GROUP/VALUE/NAME`, GROUP one of these.
inline constexpr const char* kGroupQueue =
    "queue";  // T9k queue (jobs of the default scheduler: none)
inline constexpr const char* kGroupKind = "kind";    // GenericJob, PyTorchTrainingJob, DeepSpeedJob
inline constexpr const char* kGroupClass = "class";  // generator class, by its job-name prefix

// What the recorder cannot see on the change feed: which job names a generator class makes, and
// the queues' GPU quotas (for quota_share_used).
struct RecorderGroups {
  std::vector<std::string> class_prefixes;                    // "<generator>-<class>"
  std::map<std::string, std::int64_t> queue_quota_gpu_milli;  // queue -> quota, milli-GPU
  Occupancy::Layout node_rows;  // the node timeline's rows (Occupancy::layout of the pools)
  std::unordered_map<std::string, NodeRates> node_rates;  // prices and power, by node
};

class Recorder {
 public:
  Recorder(SimTime horizon, SimDuration bucket);

  // Before the run: names generator classes and queue quotas for the grouped metrics.
  void set_groups(RecorderGroups groups);

  // Before the first change: each job's row goes to `sink` once it is final (the job left the
  // world, or was rejected) and so is every row before it, in JobId order (the order of
  // jobs.csv), or at finish(); then it is dropped. Memory stays flat in the number of finished
  // jobs; jobs() is unavailable. The figures are the same as with the rows kept.
  void stream_rows(std::function<void(const JobRow&)> sink);
  bool streaming() const { return streaming_; }
  // Rows held now: all jobs' when kept; when streaming, from the oldest job still in the world.
  std::size_t rows_held() const { return jobs_.size(); }

  void on_change(const model::TimedChange& c);
  // Closes every open interval at the horizon; call once after the run.
  void finish();

  // By JobId, when the rows are kept (not streamed; else throws std::logic_error). A deque: a
  // year's million rows grow without a doubling copy.
  const std::deque<JobRow>& jobs() const;
  // scope "cluster" or a queue name ("" = the default scheduler's jobs) -> one point per bucket.
  const std::map<std::string, std::vector<SeriesPoint>>& series() const { return series_; }
  const std::vector<FaultRecord>& faults() const { return faults_; }
  const Occupancy& occupancy() const { return occupancy_; }
  SimDuration bucket() const { return bucket_; }
  SimTime horizon() const { return horizon_; }
  // The nodes' prices and power, as set_groups gave them (jobs.csv's cost columns).
  const Costing& costing() const { return costing_; }
  // Σ over pods of (bind -> release) × milli-GPU; integral of ready allocatable milli-GPU.
  Int128 allocated_gpu_milli_us() const { return total_allocated_; }
  Int128 capacity_gpu_milli_us() const { return capacity_area_; }

  // Headline metrics, sorted by name (summary.json "metrics").
  std::map<std::string, double> metrics() const;

  // Accounting invariants; empty when all hold, else one message per violation.
  std::vector<std::string> check_invariants() const;

  // Picks a bucket width giving at most ~max_points points over the horizon, from a ladder of
  // round widths (1 m ... 1 d).
  static SimDuration choose_bucket(SimDuration horizon, int max_points = 720);

 private:
  // A piecewise-constant integer level (milli-GPU, or a count of jobs) with its exact integral,
  // bucketed; integrals in value × µs, 128-bit (a cluster's milli-GPU over months exceeds int64).
  struct Level {
    std::int64_t value = 0;
    SimTime since{};
    Int128 area = 0;
    std::vector<Int128> buckets;
  };
  void advance(Level& l, SimTime t);
  void set(Level& l, SimTime t, std::int64_t v);
  // Adds `area` (value × µs) made over [from, until), evenly, to l's buckets and integral.
  void spread(Level& l, SimTime from, SimTime until, Int128 area);
  struct Scope {
    Level allocated, productive, pending, running, in_system;
    Level pending_by_cause[model::kPendingCauses];
    Int128 sojourn_us = 0;  // Σ (end or horizon − submit) of its jobs, for Little's law
  };
  Scope& scope(const std::string& queue);
  void job_state(JobRow& row, SimTime t, bool in_system, bool running);
  void wait_cause(JobRow& row, SimTime t, std::optional<model::PendingCause> cause);

  // What a job adds to each figure it belongs to, computed once per job.
  struct JobFigures {
    enum class Outcome { Succeeded, Failed, Rejected, Unfinished } outcome = Outcome::Unfinished;
    double alloc = 0, prod = 0, lost[model::kLossCauses] = {}, idle = 0;  // GPU-µs
    explicit JobFigures(const JobRow& r);
  };
  // The headline figures of one set of jobs (the cluster, a queue, a kind or a generator class),
  // added row by row in JobId order (sums of doubles depend on the order).
  struct Figures {
    double wait_sum = 0;  // started jobs: submit -> first running, seconds
    std::int64_t waits = 0;
    // In blocks, not arrays that double: they grow late in a run, when freed memory is scattered
    // and every doubled array took fresh pages (issue 49).
    std::deque<double> waits_censored;  // plus jobs that never started, censored (docs/outputs.md)
    std::deque<double> jcts;
    double slowdown_sum = 0;
    std::int64_t slowdowns = 0;
    double cost = 0, energy_kwh = 0;  // Σ jobs' (JobRow::cost, energy_kwh)
    double alloc = 0, prod = 0, lost[model::kLossCauses] = {}, idle = 0;  // GPU-µs
    double pending[model::kPendingCauses] = {};  // job-µs waiting, by cause
    int submitted = 0, succeeded = 0, failed = 0, rejected = 0, unfinished = 0, never_started = 0;
    void add(const JobRow& r, const JobFigures& x, SimTime horizon);
    void write(std::map<std::string, double>& m, const std::string& prefix) const;
  };
  struct AllFigures {
    Figures all;
    std::map<std::string, Figures> by_queue, by_class;
    std::map<std::string, Figures, std::less<>> by_kind;  // found by a kind's static name
    Int128 pending_us[model::kPendingCauses] = {};        // Σ jobs' pending_us, for the invariant
    std::optional<std::string> accounting_violation;  // the first job whose idle time is negative
  };
  void add_figures(AllFigures& f, const JobRow& r) const;
  // A group's cost and energy metrics, when the nodes have prices or power.
  void write_cost(std::map<std::string, double>& m, const std::string& prefix,
                  const Figures& g) const;
  // Figures of the retired rows plus the rows still held (in `scratch` when there are any).
  const AllFigures& figures(AllFigures& scratch) const;
  JobRow& row(model::JobId id);
  struct JobState;
  // Charges a hold of GPUs to its job and to the cluster's totals; a pod bound (its rate kept
  // on its job) and released (charged).
  void charge(JobRow& r, const Costing::Rate& c);
  void cost_bound(JobState& js, const std::string& node, std::int64_t gpu_milli, SimTime t);
  void cost_released(JobRow& r, JobState& js, const std::string& node, std::int64_t gpu_milli,
                     SimTime t, SimTime bound_at);
  JobState& state(model::JobId id);
  // Rows from the front that are final, in JobId order: figures, sojourn sums, the sink.
  void retire_final();
  void retire_front();

  SimTime horizon_;
  SimDuration bucket_;
  std::size_t nbuckets_;
  std::deque<JobRow> jobs_;              // from JobId base_ on (all of them unless streaming)
  std::map<std::string, Scope> scopes_;  // "" key unused; cluster kept separately
  Scope cluster_;
  Level capacity_;
  std::map<std::string, std::int64_t> node_gpu_milli_;  // allocatable milli-GPU of ready nodes
  // Capacity that is down (docs/outputs.md "Where capacity went"): per node, the milli-GPU it has
  // when whole and the cause of its last loss; per cause, the milli-GPU down over time.
  struct NodeInstalled {
    std::int64_t installed = 0;
    std::string cause;
  };
  std::map<std::string, NodeInstalled> node_installed_;
  std::map<std::string, Level> down_;
  std::map<std::string, bool> node_ready_;
  // Per job, by JobId (ids are dense): (in system, running), its queue's scope.
  struct JobState {  // small parts last: 64 bytes, not 112 (one per job, issue 49)
    // Its bound pods, as sums: finish() charges them up to the horizon as
    // horizon × gpu_milli − Σ bound_at × gpu_milli (a map by pod key was a string hashed,
    // copied and freed per binding; PodReleased carries its own binding's time).
    Int128 bound_since_area = 0;  // Σ over its bound pods of bound_at (µs) × gpu_milli
    std::int64_t bound_gpu_milli = 0;
    // Likewise their cost and energy rates (analysis/costing.hpp), and Σ rate × bound_at: only
    // in a run with prices or power, made at its first binding.
    struct BoundRates {
      Costing::Rate rate, area;
    };
    model::HeapOptional<BoundRates> bound_rates;
    BoundRates& rates() {  // made at the first use
      if (!bound_rates) bound_rates.emplace();
      return *bound_rates;
    }
    OptionalTime first_pod_running;  // when its first pod started running
    SimTime waiting_since{};
    Scope* scope = nullptr;  // std::map nodes never move
    std::int32_t bound_pods = 0;
    std::optional<model::PendingCause> waiting;  // the cause of its wait now, if it waits
    bool in_system : 1 = false;
    bool running : 1 = false;
    bool final : 1 = false;  // left the world or rejected: no change names it again
  };
  std::deque<JobState> state_;  // alongside jobs_
  model::JobId base_ = 0;       // JobId of jobs_.front()
  model::JobId retired_ = 0;    // rows below this JobId are in retired_figures_
  AllFigures retired_figures_;
  bool streaming_ = false;
  std::function<void(const JobRow&)> sink_;
  Int128 total_allocated_ = 0;   // Σ over pods of (release − bind) × milli-GPU
  Int128 total_productive_ = 0;  // Σ of the progress jobs kept (ProgressCommitted)
  Int128 capacity_area_ = 0;     // milli-GPU × µs
  std::vector<FaultRecord> faults_;
  Occupancy occupancy_;
  Costing costing_;
  std::map<std::string, std::vector<SeriesPoint>> series_;
  bool finished_ = false;
  std::set<std::string> class_prefixes_;
  std::map<std::string, std::int64_t> queue_quota_gpu_milli_;
};

}  // namespace t9k::analysis
