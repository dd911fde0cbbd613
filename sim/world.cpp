#include "sim/world.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "sim/kernel/hash.hpp"
#include "sim/workload.hpp"

namespace t9k::sim {

using model::JobId;
using model::JobPhase;
using model::LossCause;
using model::Pod;
using model::PodPhase;

namespace {

// Event kinds, folded into the fingerprint.
enum EventKind : kernel::EventKind {
  kSubmit = 1,
  kReconcile,
  kRequeue,
  kCycle,
  kPodStarted,
  kPodGone,
  kTrainingDone,
  kSoftwareFailure,
  kNodeFailure,
  kSwitchFailure,
  kFailureDetected,
  kRepair,
  kOperation,
  kOrphan,
  kElasticPolicy,
  kTensorBoardReady,
};

// Same-instant order: infrastructure first, then the kubelet, the workload, scenario
// operations, controllers and last the scheduler, which so sees every change of the instant.
enum EventPhase : kernel::Phase {
  kPhaseFault = 0,
  kPhaseKubelet = 1,
  kPhaseWorkload = 2,
  kPhaseOps = 3,
  kPhaseController = 4,
  kPhaseScheduler = 5,
};

SimDuration draw_duration(const scenarios::DurationDistribution& d, kernel::Rng& rng) {
  const double s = d.seconds(rng);
  if (!(s > 0)) return SimDuration{0};
  return SimDuration{static_cast<std::int64_t>(std::llround(std::min(s, 1e12) * 1e6))};
}

// Resource names as std::string once: ResourceList look-ups by a C string build one each time.
const std::string kGpuName = model::kResourceGpu;
const std::string kGpuMilliName = model::kResourceGpuMilli;

// Whole GPUs (nvidia.com/gpu rounded up): what GPU faults and the greedy elastic policy count.
std::int64_t gpus_of(const model::ResourceList& r) {
  return model::get_resource(r, kGpuName).units_ceil();
}

// Milli-GPU, the unit of the change feed (model/change.hpp): whole GPUs × 1000 plus a share of
// one GPU (t9ksim.io/gpu-milli, 1..1000).
std::int64_t gpu_milli_of(const model::ResourceList& r) {
  return gpus_of(r) * model::kGpuMilliPerGpu + model::get_resource(r, kGpuMilliName).units_ceil();
}

// A pod's share of one GPU in milli (t9ksim.io/gpu-milli), 0 for other pods.
std::int32_t share_of(const model::ResourceList& r) {
  return static_cast<std::int32_t>(model::get_resource(r, kGpuMilliName).units_ceil());
}

// Requests as a queue counts them: a share is a fraction of nvidia.com/gpu (docs/scheduler.md).
model::ResourceList queue_view(const model::ResourceList& r) {
  const auto share = r.find(kGpuMilliName);
  if (share == r.end()) return r;
  model::ResourceList out = r;
  out.erase(kGpuMilliName);
  out[model::kResourceGpu] = model::Quantity::from_milli(model::get_resource(r, model::kResourceGpu).milli() +
                                                         share->second.units_ceil());
  return out;
}

// GPU-time of `us` microseconds on `gpu_milli` milli-GPU, exact (milli-GPU × µs).
model::Int128 gpu_time(std::int64_t us, std::int64_t gpu_milli) { return static_cast<model::Int128>(us) * gpu_milli; }

// Whether `key` ("<namespace>/<name>", or "<name>") names this pod, without building strings:
// the world looks pods up by key on every binding and eviction.
bool is_key_of(const Pod& p, std::string_view key) {
  const auto& m = p.metadata;
  if (m.namespace_.empty()) return key == m.name;
  return key.size() == m.namespace_.size() + 1 + m.name.size() && key.substr(0, m.namespace_.size()) == m.namespace_ &&
         key[m.namespace_.size()] == '/' && key.substr(m.namespace_.size() + 1) == m.name;
}

bool terminated(const Pod& p) { return p.phase == PodPhase::Succeeded || p.phase == PodPhase::Failed; }
bool live(const Pod& p) { return !terminated(p) && !p.deletion_timestamp; }

LossCause cause_of(model::DeletionReason r) {
  switch (r) {
    case model::DeletionReason::Preemption: return LossCause::Preemption;
    case model::DeletionReason::Pause: return LossCause::Pause;
    case model::DeletionReason::ScaleDown: return LossCause::Scale;
    case model::DeletionReason::MaxDuration: return LossCause::MaxDuration;
    case model::DeletionReason::NodeFailure: return LossCause::Fault;
    default: return LossCause::Other;
  }
}

std::string job_key(const model::ObjectMeta& m) {
  return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
}

// Elastic and replica facts of a job the world needs (the controllers own the rest).
struct Shape {
  bool elastic = false;
  std::int32_t min = 0, max = 0, expected = 0;
  std::int32_t replicas = 0;  // rigid total
  model::ResourceList requests;  // all pods at submission
  std::int64_t gpus_per_first_pod = 0;
};

Shape shape_of(const model::Job& job) {
  Shape s;
  auto add = [&](const model::PodTemplateSpec& t, std::int32_t n) {
    const auto r = model::pod_requests(t.spec);
    for (std::int32_t i = 0; i < n; ++i) model::add_resources(s.requests, r);
    if (s.gpus_per_first_pod == 0) s.gpus_per_first_pod = gpus_of(r);
  };
  auto elastic_from = [&](const std::optional<model::ElasticConfig>& e) {
    if (e && e->enabled) {
      s.elastic = true;
      s.min = e->min_replicas;
      s.max = e->max_replicas;
      s.expected = std::clamp(e->expected_replicas, e->min_replicas, e->max_replicas);
    }
  };
  std::visit(
      [&](const auto& j) {
        using T = std::decay_t<decltype(j)>;
        if constexpr (std::is_same_v<T, model::GenericJob>) {
          for (const auto& r : j.spec.replica_specs) {
            s.replicas += r.replicas;
            add(r.template_, r.replicas);
          }
        } else if constexpr (std::is_same_v<T, model::PyTorchTrainingJob>) {
          elastic_from(j.spec.elastic);
          for (const auto& r : j.spec.replica_specs) {
            s.replicas += r.replicas;
            if (!s.elastic) add(r.template_, r.replicas);
          }
          if (s.elastic && !j.spec.replica_specs.empty()) {
            add(j.spec.replica_specs.front().template_, s.expected);
          }
        } else {
          elastic_from(j.spec.elastic);
          s.replicas = j.spec.worker.replicas;
          add(j.spec.worker.template_, s.elastic ? s.expected : s.replicas);
        }
      },
      job);
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

struct World::Impl {
  struct Training {
    bool active = false;
    SimTime start{};          // segment start, overhead first
    SimDuration overhead{0};
    double rate = 0;          // work units per microsecond
    std::int64_t gpu_milli = 0;  // milli-GPU of the running pods
    std::int32_t n = 0;
    double committed = 0;     // work units done and safe
    bool finished = false;
    kernel::EventHandle done_ev;
    kernel::EventHandle fail_ev;
  };

  struct JobRecord {
    JobId id = 0;
    std::string key;
    model::Job job;
    scenarios::JobBehaviour behaviour;
    const controllers::Controller* controller = nullptr;
    std::vector<Pod> pods;
    std::optional<model::PodGroup> pod_group;
    std::optional<controllers::TensorBoardObservation> tensorboard;
    bool submitted = false;
    bool rejected = false;
    std::string reject_reason;
    bool reconcile_pending = false;
    kernel::EventHandle requeue_ev;
    Shape shape;
    double work_total = 0;  // work units; +inf: runs until stopped
    std::int32_t ref_n = 1;
    Training tr;
    std::optional<LossCause> pending_cause;
    std::optional<LossCause> last_stop_cause;  // why the previous training segment ended
    std::map<std::string, std::int32_t> last_generation;
    bool orphan_scheduled = false;
    bool compacted = false;  // finished: spec and pods released, outcome kept
    std::optional<kernel::Rng> rng;       // "jobs/<key>": work and restart overheads
    std::optional<kernel::Rng> fail_rng;  // "jobs/<key>/failures": software failures
    std::optional<JobOutcome> outcome;
    std::string queue;  // T9k queue, empty for the default scheduler
    std::int32_t priority = 0;
  };

  const scenarios::Scenario& sc;
  std::uint64_t replication;
  Sink sink;
  WorldSettings st;
  kernel::Kernel k;
  kernel::RngStreams streams;
  kernel::Rng rng_reconcile, rng_start, rng_stop;
  controllers::Registry registry = controllers::make_default_registry();
  scheduler::Scheduler sched;
  scheduler::ClusterSnapshot snap;
  model::Topology topo;

  std::deque<JobRecord> jobs;  // by JobId; a deque so records never move while referenced
  std::unordered_map<std::string, JobId> job_by_key;   // look-up only

  // Submissions not yet made, earliest first; ties by job key, so the order never depends on
  // how the jobs were listed (explicit entries, or generators pulled lazily).
  struct Pending {
    SimTime time;
    std::string key;
    std::int64_t explicit_index = -1;  // into sc.workload.jobs, or -1 for a generated job
    std::size_t generator = 0;
    bool operator>(const Pending& o) const { return std::tie(time, key) > std::tie(o.time, o.key); }
  };
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_submissions;
  std::vector<std::unique_ptr<SubmissionSource>> cursors;
  std::vector<std::optional<scenarios::JobSubmission>> generator_next;
  kernel::EventHandle submit_ev;
  std::unordered_map<std::string, JobId> pod_owner;    // pod key -> job, look-up only
  std::map<std::string, model::Node> nodes;            // ordered: iteration decides nothing random
  std::map<std::string, std::set<std::string>> node_pods;  // node -> bound pod keys
  // Shared GPUs (t9ksim.io/gpu-milli): node -> milli-GPU of the shares on each slot, from the
  // bindings (Pod::gpu_index), independently of the scheduler's snapshot.
  std::unordered_map<std::string, std::vector<std::int32_t>> node_shares;
  std::map<std::string, model::Queue> queues;
  std::map<std::string, std::int32_t> down_domains;    // node -> number of open faults on it
  std::map<std::string, model::ResourceList> queue_used;  // requests of bound, live T9k pods
  std::unordered_map<std::string, model::ResourceList> node_used;  // requests of bound, live pods (look-up only)
  std::uint64_t uid_counter = 0;
  bool cycle_pending = false;
  kernel::EventHandle max_duration_ev;
  SimTime max_duration_at = kernel::kTimeMax;

  Impl(const scenarios::Scenario& s, std::uint64_t rep, Sink snk, WorldSettings settings)
      : sc(s),
        replication(rep),
        sink(std::move(snk)),
        st(std::move(settings)),
        streams(s.seed, rep),
        rng_reconcile(streams.stream("controllers/reconcile-latency")),
        rng_start(streams.stream("kubelet/start-latency")),
        rng_stop(streams.stream("kubelet/stop-latency")),
        sched(st.scheduler_options) {}

  // ---- publishing ----
  template <class C>
  void publish(C c) {
    if (sink) sink(model::TimedChange{k.now(), model::Change{std::move(c)}});
  }

  [[noreturn]] void violation(const std::string& what) {
    throw InvariantViolation(fmt::format("invariant violated at t={} s (event #{}): {}",
                                         kernel::format_seconds(k.now()), k.dispatched(), what));
  }

  // ---- cluster ----
  void add_node(const scenarios::NodePool& pool, std::int32_t index, std::int32_t global_index) {
    model::Node n;
    n.metadata.name = fmt::format("{}-{}", pool.name, index);
    n.metadata.labels = pool.labels;
    n.capacity = pool.capacity();
    n.allocatable = n.capacity;
    n.gpu_model = pool.gpu_model;
    n.metadata.labels[model::kLabelHostname] = n.metadata.name;
    if (!pool.gpu_model.empty()) n.metadata.labels[model::kLabelGpuModel] = pool.gpu_model;
    const auto& t = sc.cluster.topology;
    const std::int32_t rack = t.nodes_per_rack > 0 ? global_index / t.nodes_per_rack : 0;
    const std::int32_t sw = t.racks_per_switch > 0 ? rack / t.racks_per_switch : 0;
    n.metadata.labels[model::kLabelRack] = fmt::format("rack-{}", rack);
    n.metadata.labels[model::kLabelSwitch] = fmt::format("switch-{}", sw);
    topo.add_node(n);
    snap.upsert_node(n);
    publish(model::NodeChanged{n.metadata.name, true, false, gpu_milli_of(n.allocatable), "added"});
    const std::string name = n.metadata.name;
    nodes.emplace(name, std::move(n));
    schedule_node_failure(name);
  }

  std::int32_t node_counter = 0;
  void build_cluster() {
    for (const auto& pool : sc.cluster.node_pools) {
      for (std::int32_t i = 0; i < pool.count; ++i) add_node(pool, i, node_counter++);
    }
    for (const auto& q : sc.scheduler.queues) {
      queues[q.metadata.name] = q;
      snap.upsert_queue(q);
    }
    // A queue named "default" exists (§8.2) unless the scenario defines it.
    if (!queues.count(model::kDefaultQueue)) {
      model::Queue q;
      q.metadata.name = model::kDefaultQueue;
      queues[q.metadata.name] = q;
      snap.upsert_queue(q);
    }
    // Switch-level faults (§1.7): one process per switch.
    if (st.faults.switch_failures_per_switch_day > 0) {
      std::set<std::string> switches;
      for (const auto& [name, n] : nodes) switches.insert(n.metadata.labels.at(model::kLabelSwitch));
      for (const auto& s : switches) schedule_switch_failure(s);
    }
  }

  // ---- faults ----
  SimDuration draw_interfailure(kernel::Rng& rng, double per_day) {
    const double mean_us = 86400e6 / per_day;
    double x = 0;
    if (st.faults.weibull_shape) {
      const double shape = *st.faults.weibull_shape;
      const double scale = mean_us / std::tgamma(1 + 1 / shape);
      x = kernel::Weibull(shape, scale)(rng);
    } else {
      x = kernel::Exponential(1 / mean_us)(rng);
    }
    return SimDuration{std::max<std::int64_t>(1, std::llround(std::min(x, 9e17)))};
  }

  SimDuration draw_repair(kernel::Rng& rng, double mean_hours) {
    if (sc.faults.repair_time) return draw_duration(*sc.faults.repair_time, rng);
    const double sigma = st.faults.repair_sigma;
    const double mu = std::log(mean_hours * 3600e6) - sigma * sigma / 2;  // lognormal with that mean
    return SimDuration{std::max<std::int64_t>(1, std::llround(kernel::LogNormal(mu, sigma)(rng)))};
  }

  std::map<std::string, kernel::Rng> fault_rngs;
  kernel::Rng& fault_rng(const std::string& name) {
    auto it = fault_rngs.find(name);
    if (it == fault_rngs.end()) it = fault_rngs.emplace(name, streams.stream("faults/" + name)).first;
    return it->second;
  }

  void schedule_node_failure(const std::string& node) {
    if (st.faults.node_failures_per_node_day <= 0 || st.faults.causes.empty()) return;
    auto& rng = fault_rng("node/" + node);
    const SimTime t = k.now() + draw_interfailure(rng, st.faults.node_failures_per_node_day);
    if (t > horizon()) return;
    k.schedule_at(t, kPhaseFault, kNodeFailure, kernel::hash_string(node), [this, node] { node_fault(node); });
  }

  void schedule_switch_failure(const std::string& sw) {
    auto& rng = fault_rng("switch/" + sw);
    const SimTime t = k.now() + draw_interfailure(rng, st.faults.switch_failures_per_switch_day);
    if (t > horizon()) return;
    k.schedule_at(t, kPhaseFault, kSwitchFailure, kernel::hash_string(sw), [this, sw] { switch_fault(sw); });
  }

  void node_fault(const std::string& node) {
    auto it = nodes.find(node);
    if (it == nodes.end()) return;  // removed pool
    auto& rng = fault_rng("node/" + node);
    std::vector<double> weights;
    for (const auto& c : st.faults.causes) weights.push_back(c.weight);
    const auto& cause = st.faults.causes[kernel::Categorical(weights)(rng)];
    const SimDuration repair = draw_repair(rng, cause.mean_repair_hours);
    if (cause.radius == BlastRadius::Gpu) {
      gpu_fault(node, cause.name, repair, rng);
    } else {
      take_down({node}, cause.name, repair, [this, node] { schedule_node_failure(node); });
      return;
    }
    k.schedule_in(repair, kPhaseFault, kRepair, kernel::hash_string(node), [this, node] {
      auto n = nodes.find(node);
      if (n == nodes.end()) return;
      n->second.allocatable[model::kResourceGpu] += model::Quantity::from_units(1);
      snap.upsert_node(n->second);
      publish(model::NodeChanged{node, n->second.ready, n->second.unschedulable,
                                 gpu_milli_of(n->second.allocatable), "repair"});
      request_cycle();
      schedule_node_failure(node);
    });
  }

  // Shared GPUs: slots of the node holding at least one share.
  std::int64_t shared_slots(const std::string& node) const {
    const auto it = node_shares.find(node);
    if (it == node_shares.end()) return 0;
    return std::count_if(it->second.begin(), it->second.end(), [](std::int32_t v) { return v > 0; });
  }
  // GPUs no other pod can have: whole-GPU requests plus the GPUs that hold a share.
  std::int64_t gpus_in_use(const std::string& node) { return gpus_of(node_used[node]) + shared_slots(node); }

  // One GPU fails: the pod using it (chosen by GPU count) fails at once, and the node offers one
  // GPU less until repaired. A GPU shared by several pods (docs/scheduler.md "Shared GPUs") is
  // one unit of weight 1: when it is the one that fails, every pod on it fails.
  void gpu_fault(const std::string& node, const std::string& cause, SimDuration, kernel::Rng& rng) {
    auto& n = nodes.at(node);
    if (gpus_of(n.allocatable) <= 0) return;
    std::vector<std::vector<std::string>> users;
    std::vector<double> weights;
    std::map<std::int32_t, std::vector<std::string>> slots;
    for (const auto& key : node_pods[node]) {
      const Pod* p = find_pod(key);
      if (!p || terminated(*p)) continue;
      if (gpus_of(p->requests) > 0) {
        users.push_back({key});
        weights.push_back(static_cast<double>(gpus_of(p->requests)));
      } else if (share_of(p->requests) > 0) {
        slots[p->gpu_index].push_back(key);
      }
    }
    for (auto& [slot, keys] : slots) {
      users.push_back(std::move(keys));
      weights.push_back(1.0);
    }
    const std::int64_t used = gpus_in_use(node);
    const bool all_busy = used >= gpus_of(n.allocatable);
    if (!users.empty() && (all_busy || rng.below(static_cast<std::uint64_t>(gpus_of(n.allocatable))) <
                                           static_cast<std::uint64_t>(used))) {
      for (const auto& victim : users[kernel::Categorical(weights)(rng)]) {
        JobRecord& j = jobs[pod_owner.at(victim)];
        j.pending_cause = LossCause::Fault;
        terminate_pod(j, victim, PodPhase::Failed, 137);
        enqueue_reconcile(j.id);
      }
    }
    n.allocatable[model::kResourceGpu] -= model::Quantity::from_units(1);
    snap.upsert_node(n);
    publish(model::NodeChanged{node, n.ready, n.unschedulable, gpu_milli_of(n.allocatable), cause});
  }

  void switch_fault(const std::string& sw) {
    auto& rng = fault_rng("switch/" + sw);
    const SimDuration repair = draw_repair(rng, 2.0);  // [D] a cable or switch swap: hours
    // The failure domain is the switch's subtree of the topology graph (faults-and-validation §1.7).
    std::vector<std::string> down;
    for (const auto& name : topo.subtree_nodes(model::Topology::Level::Switch, sw)) {
      if (nodes.count(name)) down.push_back(name);
    }
    if (down.empty()) return;
    take_down(down, "network-switch", repair, [this, sw] { schedule_switch_failure(sw); });
  }

  // Nodes fail: their pods go Unknown now and Failed (137) after the detection delay (§11 Q13);
  // the nodes return after `repair`.
  void take_down(const std::vector<std::string>& names, const std::string& cause, SimDuration repair,
                 std::function<void()> after_repair) {
    std::set<JobId> touched;
    for (const auto& name : names) {
      auto& n = nodes.at(name);
      ++down_domains[name];
      n.ready = false;
      snap.upsert_node(n);
      publish(model::NodeChanged{name, false, n.unschedulable, gpu_milli_of(n.allocatable), cause});
      for (const auto& key : node_pods[name]) {
        auto [j, p] = pod_ref(key);
        if (terminated(*p) || p->phase == PodPhase::Unknown) continue;
        p->phase = PodPhase::Unknown;
        j->pending_cause = LossCause::Fault;
        touched.insert(j->id);
      }
    }
    for (JobId id : touched) {
      evaluate_training(jobs[id]);
      enqueue_reconcile(id);
    }
    k.schedule_in(st.detection_delay, kPhaseFault, kFailureDetected, kernel::hash_string(cause),
                  [this, names] {
                    for (const auto& name : names) {
                      const std::set<std::string> keys = node_pods[name];
                      for (const auto& key : keys) {
                        auto [j, p] = pod_ref(key);
                        if (p->phase != PodPhase::Unknown) continue;
                        terminate_pod(*j, key, PodPhase::Failed, 137);
                        enqueue_reconcile(j->id);
                      }
                    }
                  });
    k.schedule_in(repair, kPhaseFault, kRepair, kernel::hash_string(cause) + 1,
                  [this, names, after_repair = std::move(after_repair)] {
                    for (const auto& name : names) {
                      auto n = nodes.find(name);
                      if (n == nodes.end()) continue;
                      if (--down_domains[name] > 0) continue;  // still down for another fault
                      n->second.ready = true;
                      snap.upsert_node(n->second);
                      publish(model::NodeChanged{name, true, n->second.unschedulable,
                                                 gpu_milli_of(n->second.allocatable), "repair"});
                    }
                    request_cycle();
                    after_repair();
                  });
  }

  SimTime horizon() const { return SimTime{sc.horizon}; }

  // ---- pods ----
  std::pair<JobRecord*, Pod*> pod_ref(const std::string& key) {
    JobRecord& j = jobs[pod_owner.at(key)];
    for (auto& p : j.pods) {
      if (is_key_of(p, key)) return {&j, &p};
    }
    throw std::logic_error("pod " + key + " not stored");
  }
  Pod* find_pod(const std::string& key) {
    auto it = pod_owner.find(key);
    if (it == pod_owner.end()) return nullptr;
    for (auto& p : jobs[it->second].pods) {
      if (is_key_of(p, key)) return &p;
    }
    return nullptr;
  }

  void release(JobRecord& j, Pod& p) {
    const std::string key = scheduler::object_key(p.metadata);
    if (!p.node_name.empty()) {
      auto it = node_pods.find(p.node_name);
      if (it != node_pods.end() && it->second.erase(key) > 0) {
        if (!j.queue.empty()) {
          auto& used = queue_used[j.queue];
          used = model::subtract_resources(used, share_of(p.requests) > 0 ? queue_view(p.requests) : p.requests);
        }
        if (const std::int32_t g = share_of(p.requests); g > 0 && p.gpu_index >= 0)
          node_shares[p.node_name][static_cast<std::size_t>(p.gpu_index)] -= g;
        auto& on_node = node_used[p.node_name];
        on_node = model::subtract_resources(on_node, p.requests);
        publish(model::PodReleased{j.id, key, p.node_name, gpu_milli_of(p.requests), j.queue, p.phase,
                                   p.exit_code, p.deletion_reason});
        request_cycle();
      }
    }
  }

  // The pod's containers stop with this phase and exit code; it keeps its object.
  void terminate_pod(JobRecord& j, const std::string& key, PodPhase phase, std::int32_t exit_code) {
    Pod* p = nullptr;
    for (auto& q : j.pods) {
      if (is_key_of(q, key)) p = &q;
    }
    if (!p || terminated(*p)) return;
    p->phase = phase;
    p->exit_code = exit_code;
    p->finish_time = k.now();
    release(j, *p);
    snap.release(key, phase == PodPhase::Succeeded);
    if (!j.pending_cause) j.pending_cause = exit_code == 0 ? LossCause::Other : LossCause::Software;
    evaluate_training(j);
  }

  void remove_pod(JobRecord& j, const std::string& key) {
    auto it = std::find_if(j.pods.begin(), j.pods.end(),
                           [&](const Pod& p) { return is_key_of(p, key); });
    if (it == j.pods.end()) return;
    release(j, *it);
    snap.remove_pod(key);
    pod_owner.erase(key);
    j.pods.erase(it);
    evaluate_training(j);
  }

  void delete_pod(JobRecord& j, const std::string& name, model::DeletionReason reason) {
    Pod* p = nullptr;
    for (auto& q : j.pods) {
      if (q.metadata.name == name) p = &q;
    }
    if (!p || p->deletion_timestamp) return;
    const std::string key = scheduler::object_key(p->metadata);
    publish(model::PodDeleted{j.id, key, reason});
    p->deletion_timestamp = k.now();
    p->deletion_reason = reason;
    if (terminated(*p) || p->node_name.empty()) {
      remove_pod(j, key);  // nothing runs: gone at once
      enqueue_reconcile(j.id);
      return;
    }
    if (!j.pending_cause) j.pending_cause = cause_of(reason);
    snap.evict(key);  // terminating: still holds its resources
    evaluate_training(j);
    SimDuration stop = draw_duration(sc.kubelet.pod_stop_latency, rng_stop);
    stop = std::min(stop, kernel::seconds(p->termination_grace_period_seconds));
    const std::int32_t gen = p->generation;
    k.schedule_in(stop, kPhaseKubelet, kPodGone, kernel::hash_string(key), [this, id = j.id, key, gen] {
      JobRecord& jr = jobs[id];
      Pod* q = find_pod(key);
      if (!q || q->generation != gen) return;
      remove_pod(jr, key);
      enqueue_reconcile(id);
    });
  }

  // ---- controllers ----
  SimDuration reconcile_latency() { return draw_duration(sc.controllers.reconcile_latency, rng_reconcile); }

  void enqueue_reconcile(JobId id) {
    JobRecord& j = jobs[id];
    if (j.reconcile_pending || j.rejected || !j.submitted || j.compacted) return;
    j.reconcile_pending = true;
    k.schedule_in(reconcile_latency(), kPhaseController, kReconcile, id, [this, id] { reconcile(id); });
  }

  void reconcile(JobId id) {
    JobRecord& j = jobs[id];
    j.reconcile_pending = false;
    if (j.compacted) return;
    const controllers::ReconcileInput in{j.job, std::span<const Pod>(j.pods),
                                         j.pod_group ? &*j.pod_group : nullptr, j.tensorboard,
                                         k.now(), st.controller_options};
    controllers::ReconcileResult res = j.controller->reconcile(in);
    const auto before = model::status_of(j.job).phase;
    const auto counters_before = counters(model::status_of(j.job));
    model::status_of(j.job) = std::move(res.status);
    for (auto& a : res.actions) apply(j, a);
    const auto& status = model::status_of(j.job);
    if (status.phase && (status.phase != before || counters(status) != counters_before)) on_phase(j, before);
    if (res.requeue_after) {
      k.cancel(j.requeue_ev);
      j.requeue_ev = k.schedule_in(*res.requeue_after, kPhaseController, kRequeue, id,
                                   [this, id] { enqueue_reconcile(id); });
    }
    evaluate_training(j);
    maybe_compact(j);
  }

  // (sum of tasks[].restartCount, backoffCount): published whenever they change.
  static std::pair<std::int32_t, std::int32_t> counters(const model::JobStatus& s) {
    std::int32_t restarts = 0;
    for (const auto& t : s.tasks) restarts += t.restart_count;
    return {restarts, s.backoff_count.value_or(0)};
  }

  void on_phase(JobRecord& j, std::optional<JobPhase> before) {
    const auto& status = model::status_of(j.job);
    const JobPhase ph = *status.phase;
    if (before && model::is_terminal(*before) && ph != *before) {
      violation(fmt::format("job {} left terminal phase {} for {}", j.key, model::to_string(*before),
                            model::to_string(ph)));
    }
    std::string reason, message;
    for (const auto& c : status.conditions) {
      const bool pick = model::is_terminal(ph)
                            ? (c.type == model::JobConditionType::Completed)
                            : (c.type == model::JobConditionType::Running);
      if (pick) {
        reason = c.reason;
        message = c.message;
      }
    }
    if (model::is_terminal(ph)) {
      for (const auto& c : status.conditions) {
        if (c.type == model::JobConditionType::Failed && c.status == model::ConditionStatus::True) message = c.message;
      }
    }
    std::int32_t restarts = 0;
    for (const auto& t : status.tasks) restarts += t.restart_count;
    publish(model::JobPhaseChanged{j.id, ph, reason, message, restarts, status.backoff_count.value_or(0)});
    if (model::is_terminal(ph) && before != ph) {
      stop_training(j, LossCause::Other);
      if (!j.orphan_scheduled) {
        j.orphan_scheduled = true;
        k.schedule_in(st.orphan_timeout, kPhaseWorkload, kOrphan, j.id, [this, id = j.id] { orphans(id); });
      }
    }
  }

  // Training pods of a finished job lose their peers and exit (torchrun rendezvous timeout);
  // DeepSpeed workers other than worker-0 run sshd and stay (§5); debug pods stay (§7.1).
  void orphans(JobId id) {
    JobRecord& j = jobs[id];
    std::vector<std::string> keys;
    for (const auto& p : j.pods) {
      if (!live(p) || p.debug || p.node_name.empty()) continue;
      if (model::kind_of(j.job) == model::JobKind::DeepSpeedJob && p.rank != 0) continue;
      keys.push_back(scheduler::object_key(p.metadata));
    }
    for (const auto& key : keys) terminate_pod(j, key, PodPhase::Failed, 1);
    if (!keys.empty()) enqueue_reconcile(id);
  }

  void apply(JobRecord& j, controllers::Action& action) {
    std::visit(
        [&](auto& a) {
          using T = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<T, controllers::CreatePod>) {
            create_pod(j, std::move(a.pod));
          } else if constexpr (std::is_same_v<T, controllers::DeletePod>) {
            delete_pod(j, a.name, a.reason);
          } else if constexpr (std::is_same_v<T, controllers::CreatePodGroup>) {
            j.pod_group = std::move(a.pod_group);
            if (!j.pod_group->metadata.creation_timestamp) j.pod_group->metadata.creation_timestamp = k.now();
            snap.upsert_pod_group(*j.pod_group);
            request_cycle();
          } else if constexpr (std::is_same_v<T, controllers::UpdatePodGroup>) {
            const auto created = j.pod_group ? j.pod_group->metadata.creation_timestamp : std::nullopt;
            j.pod_group = std::move(a.pod_group);
            if (created) j.pod_group->metadata.creation_timestamp = created;  // §11 Q20
            snap.upsert_pod_group(*j.pod_group);
            request_cycle();
          } else if constexpr (std::is_same_v<T, controllers::CreateTensorBoard>) {
            if (!j.tensorboard) {
              j.tensorboard = controllers::TensorBoardObservation{fmt::format("tb-{}", ++uid_counter), false};
              // [INFERRED] a TensorBoard is ready after its pod starts (§9): one pod start latency.
              k.schedule_in(draw_duration(sc.kubelet.pod_start_latency, rng_start), kPhaseKubelet,
                            kTensorBoardReady, j.id, [this, id = j.id] {
                              jobs[id].tensorboard->ready = true;
                              enqueue_reconcile(id);
                            });
            }
          } else if constexpr (std::is_same_v<T, controllers::RestartTraining>) {
            if (j.tr.active) {
              j.pending_cause = LossCause::Scale;
              stop_training(j, LossCause::Scale);
            }
          }
        },
        action);
  }

  void create_pod(JobRecord& j, Pod pod) {
    pod.metadata.uid = fmt::format("pod-{}", ++uid_counter);
    pod.metadata.creation_timestamp = k.now();
    if (pod.metadata.namespace_.empty()) pod.metadata.namespace_ = model::metadata_of(j.job).namespace_;
    auto [it, fresh] = j.last_generation.emplace(pod.metadata.name, 0);
    if (!fresh) ++it->second;
    pod.generation = it->second;
    const std::string key = scheduler::object_key(pod.metadata);
    if (pod_owner.count(key)) violation("pod name reused while stored: " + key);
    pod_owner[key] = j.id;
    publish(model::PodCreated{j.id, key, pod.replica_type, pod.rank, gpu_milli_of(pod.requests)});
    snap.upsert_pod(pod);
    j.pods.push_back(std::move(pod));
    request_cycle();
  }

  // ---- scheduler ----
  void request_cycle() {
    if (cycle_pending) return;
    cycle_pending = true;
    k.schedule_in(st.scheduling_latency, kPhaseScheduler, kCycle, 0, [this] { cycle(); });
  }

  void cycle() {
    cycle_pending = false;
    const scheduler::Decisions d = sched.schedule(snap, k.now());
    // Gangs being admitted in this cycle: T9k groups with no member bound before it. A running
    // group that lost members gets its replacements one by one (§11 Q10), so only admissions
    // must reach minMember at once.
    std::set<std::string> groups_admitted;
    for (const auto& b : d.bindings) {
      auto [j, p] = pod_ref(b.pod);
      if (!p->pod_group.empty() && bound_members(*j) == 0) groups_admitted.insert(j->key);
    }
    for (const auto& b : d.bindings) {
      auto [j, p] = pod_ref(b.pod);
      bind(*j, *p, b.node, b.gpu_slot);
    }
    check_after_bindings(d, groups_admitted);
    for (const auto& e : d.evictions) {
      auto [j, p] = pod_ref(e.pod);
      if (e.reason == model::DeletionReason::MaxDuration) {
        // §11 Q12 and the controller contract: kept, reported Failed with reason MaxDuration.
        p->deletion_reason = model::DeletionReason::MaxDuration;
        j->pending_cause = LossCause::MaxDuration;
        terminate_pod(*j, e.pod, PodPhase::Failed, 137);
      } else {
        delete_pod(*j, p->metadata.name, e.reason);
        // Reserve what the preemptor waits for, so lower-priority pods recreated meanwhile do
        // not take it (nomination, docs/scheduler.md).
        if (e.reason == model::DeletionReason::Preemption && !e.preemptor.empty()) {
          snap.nominate(e.preemptor, e.reservations);
        }
      }
      enqueue_reconcile(j->id);
    }
    arm_max_duration();
  }

  void arm_max_duration() {
    const auto next = snap.next_max_duration_expiry();
    if (!next || *next >= max_duration_at) {
      if (next && *next == max_duration_at) return;
      if (!next) return;
    }
    if (*next > horizon()) return;
    k.cancel(max_duration_ev);
    max_duration_at = std::max(*next, k.now());
    max_duration_ev = k.schedule_at(max_duration_at, kPhaseScheduler, kCycle, 1, [this] {
      max_duration_at = kernel::kTimeMax;
      cycle();
    });
  }

  void bind(JobRecord& j, Pod& p, const std::string& node, std::int32_t gpu_slot) {
    const std::string key = scheduler::object_key(p.metadata);
    auto& n = nodes.at(node);
    if (!n.ready || n.unschedulable) violation(fmt::format("pod {} bound to unavailable node {}", key, node));
    p.node_name = node;
    p.bind_time = k.now();
    const std::int32_t share = share_of(p.requests);
    if (share > 0) {
      if (gpu_slot < 0) violation(fmt::format("shared-GPU pod {} bound to {} without a GPU slot", key, node));
      p.gpu_index = gpu_slot;
      auto& slots = node_shares[node];
      if (slots.size() <= static_cast<std::size_t>(gpu_slot)) slots.resize(static_cast<std::size_t>(gpu_slot) + 1, 0);
      slots[static_cast<std::size_t>(gpu_slot)] += share;
      if (slots[static_cast<std::size_t>(gpu_slot)] > model::kGpuMilliPerGpu)
        violation(fmt::format("GPU slot {} of node {} over-committed ({} milli) by binding {}", gpu_slot, node,
                              slots[static_cast<std::size_t>(gpu_slot)], key));
    }
    if (!j.queue.empty()) model::add_resources(queue_used[j.queue], share > 0 ? queue_view(p.requests) : p.requests);
    snap.bind(key, node, share > 0 ? gpu_slot : -1);
    node_pods[node].insert(key);
    publish(model::PodBound{j.id, key, node, gpu_milli_of(p.requests), j.queue});
    // No node over-allocated (issue 6 §8), checked from the world's own bookkeeping,
    // independently of the scheduler's snapshot.
    auto& used = node_used[node];
    model::add_resources(used, p.requests);
    // Shares count as the GPUs they sit on: whole GPUs plus used slots within the node's GPUs.
    bool fits = true;
    if (used.count(kGpuMilliName) == 0) {
      fits = model::fits(used, n.allocatable);
    } else {
      model::ResourceList need = used;
      need.erase(kGpuMilliName);
      need[model::kResourceGpu] = model::Quantity::from_units(gpus_in_use(node));
      fits = model::fits(need, n.allocatable);
    }
    if (!fits) violation(fmt::format("node {} over-allocated by binding {}", node, key));
    const std::int32_t gen = p.generation;
    k.schedule_in(draw_duration(sc.kubelet.pod_start_latency, rng_start), kPhaseKubelet, kPodStarted,
                  kernel::hash_string(key), [this, id = j.id, key, gen] {
                    Pod* q = find_pod(key);
                    if (!q || q->generation != gen || q->phase != PodPhase::Pending || q->deletion_timestamp) return;
                    q->phase = PodPhase::Running;
                    q->start_time = k.now();
                    // Running and bound are the same to the scheduler: no snapshot update.
                    publish(model::PodRunning{id, key});
                    enqueue_reconcile(id);
                    evaluate_training(jobs[id]);
                  });
    enqueue_reconcile(j.id);
  }

  // Pods of the job holding a binding and not failed: the members that count toward minMember.
  static std::int32_t bound_members(const JobRecord& j) {
    std::int32_t members = 0;
    for (const auto& p : j.pods) {
      if (!p.node_name.empty() && p.phase != PodPhase::Failed) ++members;
    }
    return members;
  }

  void check_after_bindings(const scheduler::Decisions& d, const std::set<std::string>& groups) {
    // No gang partially bound: a PodGroup admitted in this cycle has at least minMember pods bound.
    for (const auto& key : groups) {
      JobRecord& j = jobs[job_by_key.at(key)];
      if (!j.pod_group) continue;
      const std::int32_t members = bound_members(j);
      if (members < j.pod_group->spec.min_member && !st.scheduler_options.permit.empty()) {
        violation(fmt::format("gang {} partially bound: {} of minMember {}", key, members,
                              j.pod_group->spec.min_member));
      }
    }
    // No queue over quota (T9k, gate-at-scheduling).
    if (st.scheduler_options.quota_mode == scheduler::QuotaMode::GateAtScheduling) {
      std::set<std::string> queues_touched;
      for (const auto& b : d.bindings) {
        const JobRecord& j = jobs[pod_owner.at(b.pod)];
        if (!j.queue.empty()) queues_touched.insert(j.queue);
      }
      for (const auto& qname : queues_touched) {
        const auto qit = queues.find(qname);
        if (qit == queues.end() || !qit->second.spec.quota) continue;
        const model::ResourceList& used = queue_used[qname];
        model::ResourceList need;
        for (const auto& [r, q] : *qit->second.spec.quota) need[r] = model::get_resource(used, r);
        if (!model::fits(need, *qit->second.spec.quota)) violation("queue " + qname + " over quota");
      }
    }
  }

  // ---- workload ----
  double speedup(const JobRecord& j, std::int32_t n) const {
    const auto& sc_ = j.behaviour.scaling;
    if (n <= 0) return 0;
    switch (sc_.model) {
      case scenarios::ScalingModel::Linear: return static_cast<double>(n);
      case scenarios::ScalingModel::Amdahl: {
        const double s = sc_.serial_fraction;
        return 1.0 / (s + (1 - s) / static_cast<double>(n));
      }
      case scenarios::ScalingModel::Fixed: return static_cast<double>(j.ref_n);
      case scenarios::ScalingModel::Table: {
        const auto& t = sc_.throughput;
        if (t.empty()) return static_cast<double>(n);
        const auto hi = t.lower_bound(n);
        if (hi != t.end() && hi->first == n) return hi->second;
        if (hi == t.begin()) return hi->second * n / hi->first;  // below the table: proportional
        const auto lo = std::prev(hi);
        if (hi == t.end()) return lo->second;  // beyond the table: no further gain
        const double f = static_cast<double>(n - lo->first) / static_cast<double>(hi->first - lo->first);
        return lo->second + f * (hi->second - lo->second);
      }
    }
    return static_cast<double>(n);
  }

  bool paused(const JobRecord& j) const { return model::run_mode_of(j.job).pause.enabled; }

  void evaluate_training(JobRecord& j) {
    const auto& status = model::status_of(j.job);
    const bool terminal = status.phase && model::is_terminal(*status.phase);
    std::int32_t n = 0;
    bool all_running = true;
    bool debug = false;
    std::int64_t gpu_milli = 0;
    for (const auto& p : j.pods) {
      if (!live(p)) continue;
      if (p.debug) debug = true;
      if (p.phase == PodPhase::Running) {
        ++n;
        gpu_milli += gpu_milli_of(p.requests);
      } else {
        all_running = false;
      }
    }
    const std::int32_t required = j.shape.elastic ? std::max(1, j.shape.min) : j.shape.replicas;
    const bool can_run = !terminal && !j.tr.finished && !paused(j) && !debug && n >= required &&
                         n > 0 && (j.shape.elastic ? true : all_running);
    if (j.tr.active && (!can_run || n != j.tr.n)) {
      stop_training(j, j.pending_cause.value_or(n > j.tr.n ? LossCause::Scale : LossCause::Other));
    }
    j.pending_cause.reset();
    if (!j.tr.active && can_run) start_training(j, n, gpu_milli);
  }

  void start_training(JobRecord& j, std::int32_t n, std::int64_t gpu_milli) {
    auto& tr = j.tr;
    tr.active = true;
    tr.n = n;
    tr.gpu_milli = gpu_milli;
    tr.start = k.now();
    tr.rate = speedup(j, n);
    auto& rng = job_rng(j);
    // A membership change restarts the processes with the elastic rescale overhead (§11 Q8);
    // any other (re)start pays the restart overhead (faults-and-validation §1.5).
    tr.overhead = j.last_stop_cause == LossCause::Scale ? j.behaviour.scaling.rescale_overhead
                                                        : draw_duration(j.behaviour.restart_overhead, rng);
    publish(model::TrainingChanged{j.id, gpu_milli});
    if (!std::isfinite(j.work_total)) {
      schedule_software_failure(j);
      return;
    }
    const double remaining = std::max(0.0, j.work_total - tr.committed);
    const double prod = remaining / tr.rate;  // microseconds of productive time
    std::int64_t checkpoints = 0;
    const auto& b = j.behaviour;
    if (b.checkpoint_interval && b.checkpoint_interval->count() > 0) {
      const double iv = static_cast<double>(b.checkpoint_interval->count());
      checkpoints = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(prod / iv)) - 1);
    }
    const double total = static_cast<double>(tr.overhead.count()) + prod +
                         static_cast<double>(checkpoints) * static_cast<double>(b.checkpoint_cost.count());
    const SimTime done = k.now() + SimDuration{static_cast<std::int64_t>(std::ceil(std::min(total, 9e17)))};
    if (done <= horizon()) {
      tr.done_ev = k.schedule_at(done, kPhaseWorkload, kTrainingDone, j.id, [this, id = j.id] { training_done(id); });
    }
    schedule_software_failure(j);
  }

  // Each job's own streams, created on first use and kept in its record.
  kernel::Rng& job_rng(JobRecord& j) {
    if (!j.rng) j.rng = streams.stream("jobs/" + j.key);
    return *j.rng;
  }
  kernel::Rng& fail_rng(JobRecord& j) {
    if (!j.fail_rng) j.fail_rng = streams.stream("jobs/" + j.key + "/failures");
    return *j.fail_rng;
  }

  void schedule_software_failure(JobRecord& j) {
    const double per_hour = j.behaviour.failure.hazard_per_hour + st.faults.software_failures_per_job_hour;
    if (per_hour <= 0) return;
    const double x = kernel::Exponential(per_hour / 3600e6)(fail_rng(j));
    const SimTime t = k.now() + SimDuration{std::llround(std::min(x, 9e17))};
    if (t > horizon()) return;
    j.tr.fail_ev = k.schedule_at(t, kPhaseWorkload, kSoftwareFailure, j.id, [this, id = j.id] { software_failure(id); });
  }

  void software_failure(JobId id) {
    JobRecord& j = jobs[id];
    std::vector<std::string> running;
    for (const auto& p : j.pods) {
      if (live(p) && p.phase == PodPhase::Running) running.push_back(scheduler::object_key(p.metadata));
    }
    if (running.empty()) return;
    auto& rng = fail_rng(j);
    const std::string victim = running[rng.below(running.size())];
    std::int32_t code = 1;
    const auto& mix = j.behaviour.failure.exit_codes;
    if (!mix.empty()) {
      std::vector<double> w;
      for (const auto& e : mix) w.push_back(e.weight);
      code = mix[kernel::Categorical(w)(rng)].exit_code;
    }
    j.pending_cause = LossCause::Software;
    terminate_pod(j, victim, PodPhase::Failed, code);
    enqueue_reconcile(id);
  }

  // Productive time of the running segment so far, split into what completed checkpoints saved
  // and what came after the last one (a checkpoint being written counts as not saved).
  struct Progress {
    std::int64_t kept_us = 0;
    std::int64_t since_checkpoint_us = 0;
  };
  Progress segment_progress(const JobRecord& j) const {
    const auto& tr = j.tr;
    const SimTime prod_start = tr.start + tr.overhead;
    if (k.now() <= prod_start) return {};
    const std::int64_t e = (k.now() - prod_start).count();
    const auto& b = j.behaviour;
    if (!b.checkpoint_interval || b.checkpoint_interval->count() <= 0) return {0, e};
    const std::int64_t iv = b.checkpoint_interval->count();
    const std::int64_t cyc = iv + b.checkpoint_cost.count();
    std::int64_t done = e / cyc;
    // The work cannot checkpoint past its end (the job would have finished).
    if (std::isfinite(j.work_total)) {
      const double left = (j.work_total - tr.committed) / tr.rate;
      done = std::min<std::int64_t>(done, static_cast<std::int64_t>(left / static_cast<double>(iv)));
    }
    return {done * iv, std::min(e - done * cyc, iv)};
  }

  // Stops the running segment: progress since the last checkpoint is lost to `cause`.
  void stop_training(JobRecord& j, LossCause cause) {
    auto& tr = j.tr;
    if (!tr.active) return;
    k.cancel(tr.done_ev);
    k.cancel(tr.fail_ev);
    tr.active = false;
    j.last_stop_cause = cause;
    const Progress pr = segment_progress(j);
    tr.committed += static_cast<double>(pr.kept_us) * tr.rate;
    if (pr.kept_us > 0) publish(model::ProgressCommitted{j.id, gpu_time(pr.kept_us, tr.gpu_milli)});
    if (pr.since_checkpoint_us > 0) {
      publish(model::ProgressLost{j.id, cause, gpu_time(pr.since_checkpoint_us, tr.gpu_milli)});
    }
    publish(model::TrainingChanged{j.id, 0});
  }

  void training_done(JobId id) {
    JobRecord& j = jobs[id];
    auto& tr = j.tr;
    k.cancel(tr.fail_ev);
    const SimTime prod_start = tr.start + tr.overhead;
    const double prod = (j.work_total - tr.committed) / tr.rate;
    publish(model::ProgressCommitted{id, gpu_time(std::llround(prod), tr.gpu_milli)});
    (void)prod_start;
    tr.committed = j.work_total;
    tr.finished = true;
    tr.active = false;
    publish(model::TrainingChanged{id, 0});
    // The training processes exit: all pods, except DeepSpeed workers other than the launcher,
    // which run sshd (§5).
    const std::int32_t code = j.behaviour.failure.final_exit_code;
    std::vector<std::string> keys;
    for (const auto& p : j.pods) {
      if (!live(p) || p.phase != PodPhase::Running) continue;
      if (model::kind_of(j.job) == model::JobKind::DeepSpeedJob && p.rank != 0) continue;
      keys.push_back(scheduler::object_key(p.metadata));
    }
    for (const auto& key : keys) {
      j.pending_cause = LossCause::Other;
      terminate_pod(j, key, code == 0 ? PodPhase::Succeeded : PodPhase::Failed, code);
    }
    enqueue_reconcile(id);
  }

  // ---- submission ----
  std::string key_of(const scenarios::JobSubmission& sub) const {
    auto m = model::metadata_of(sub.job);
    if (m.namespace_.empty()) m.namespace_ = sc.default_namespace;
    return job_key(m);
  }

  void queue_submissions() {
    for (std::size_t i = 0; i < sc.workload.jobs.size(); ++i) {
      const auto& sub = sc.workload.jobs[i];
      pending_submissions.push(Pending{sub.submit_time, key_of(sub), static_cast<std::int64_t>(i), 0});
    }
    cursors = workload_sources(sc, replication);
    generator_next.resize(cursors.size());
    for (std::size_t g = 0; g < cursors.size(); ++g) pull_generator(g);
    schedule_next_submission();
  }

  void pull_generator(std::size_t g) {
    generator_next[g] = cursors[g]->next();
    if (generator_next[g]) {
      pending_submissions.push(Pending{generator_next[g]->submit_time, key_of(*generator_next[g]), -1, g});
    }
  }

  void schedule_next_submission() {
    if (pending_submissions.empty()) return;
    const Pending& next = pending_submissions.top();
    if (next.time > horizon()) return;
    submit_ev = k.schedule_at(next.time, kPhaseOps, kSubmit, kernel::hash_string(next.key), [this] {
      const Pending p = pending_submissions.top();
      pending_submissions.pop();
      if (p.explicit_index >= 0) {
        add_job(sc.workload.jobs[static_cast<std::size_t>(p.explicit_index)]);
      } else {
        add_job(std::move(*generator_next[p.generator]));
        pull_generator(p.generator);
      }
      schedule_next_submission();
    });
  }

  void add_job(scenarios::JobSubmission sub) {
    JobRecord j;
    j.id = static_cast<JobId>(jobs.size());
    j.job = std::move(sub.job);
    auto& meta = model::metadata_of(j.job);
    if (meta.namespace_.empty()) meta.namespace_ = sc.default_namespace;
    j.key = job_key(meta);
    j.behaviour = std::move(sub.behaviour);
    const auto kind = model::kind_of(j.job);
    static constexpr std::string_view kKinds[] = {"GenericJob", "PyTorchTrainingJob", "DeepSpeedJob"};
    j.controller = registry.find(model::kBatchApiVersion, kKinds[static_cast<int>(kind)]);
    if (!j.controller) throw ScenarioError(fmt::format("no controller for {}", kKinds[static_cast<int>(kind)]));
    if (const auto& s = model::scheduler_of(j.job).t9k_scheduler) {
      j.queue = s->queue.empty() ? model::kDefaultQueue : s->queue;
      j.priority = s->priority;
    }
    j.shape = shape_of(j.job);
    j.ref_n = j.shape.elastic ? std::max(1, j.shape.expected) : std::max(1, j.shape.replicas);
    if (job_by_key.count(j.key)) throw ScenarioError(fmt::format("two jobs named {} ({})", j.key, sub.source));
    job_by_key[j.key] = j.id;
    jobs.push_back(std::move(j));
    JobRecord& jr = jobs.back();
    // Work in units of "1 replica for 1 µs"; run_time is wall time at the initial scale.
    auto& rng = job_rng(jr);
    if (jr.behaviour.run_time) {
      jr.work_total = static_cast<double>(draw_duration(*jr.behaviour.run_time, rng).count()) * speedup(jr, jr.ref_n);
    } else if (jr.behaviour.work) {
      jr.work_total = static_cast<double>(draw_duration(*jr.behaviour.work, rng).count());
    } else {
      jr.work_total = std::numeric_limits<double>::infinity();  // runs until stopped
    }
    submit(jr.id);
  }

  void submit(JobId id) {
    JobRecord& j = jobs[id];
    const auto kind = model::kind_of(j.job);
    const double ideal = std::isfinite(j.work_total) ? j.work_total / speedup(j, j.ref_n) : 0;
    publish(model::JobSubmitted{id, j.key, kind, j.queue, j.priority,
                                j.shape.elastic ? j.shape.expected : j.shape.replicas,
                                gpu_milli_of(j.shape.requests), j.shape.elastic,
                                static_cast<std::int64_t>(std::llround(ideal))});
    model::metadata_of(j.job).creation_timestamp = k.now();
    model::metadata_of(j.job).uid = fmt::format("job-{}", id);
    if (!j.queue.empty()) {
      const auto rej = sched.admit(snap, scheduler::AdmissionRequest{j.key, j.queue, j.shape.requests});
      if (rej) {
        j.rejected = true;
        j.reject_reason = rej->message;
        publish(model::JobRejected{id, std::string(scheduler::to_string(rej->reason)) + ": " + rej->message});
        return;
      }
    }
    j.submitted = true;
    enqueue_reconcile(id);
  }

  JobOutcome outcome_of(const JobRecord& j) const {
    if (j.outcome) return *j.outcome;
    JobOutcome o;
    o.name = j.key;
    o.kind = model::kind_of(j.job);
    o.rejected = j.rejected;
    const auto& status = model::status_of(j.job);
    o.phase = status.phase;
    for (const auto& c : status.conditions) {
      if (status.phase && model::is_terminal(*status.phase) && c.type == model::JobConditionType::Completed) {
        o.reason = c.reason;
      }
      if (c.type == model::JobConditionType::Failed && c.status == model::ConditionStatus::True) o.message = c.message;
    }
    if (j.rejected) o.reason = j.reject_reason;
    const auto [restarts, backoff] = counters(status);
    o.restarts = restarts;
    o.backoff_count = backoff;
    return o;
  }

  // A finished job whose pods have all terminated can no longer change anything: keep its
  // outcome, release its spec, pods and PodGroup (memory stays flat over long runs).
  void maybe_compact(JobRecord& j) {
    if (j.compacted || j.reconcile_pending) return;
    const auto& status = model::status_of(j.job);
    if (!status.phase || !model::is_terminal(*status.phase)) return;
    for (const auto& p : j.pods) {
      if (!terminated(p)) return;
    }
    j.outcome = outcome_of(j);
    for (const auto& p : j.pods) {
      const std::string key = scheduler::object_key(p.metadata);
      snap.remove_pod(key);
      pod_owner.erase(key);
    }
    if (j.pod_group) snap.remove_pod_group(scheduler::object_key(j.pod_group->metadata));
    k.cancel(j.requeue_ev);
    j.pods = {};
    j.pod_group.reset();
    j.job = model::GenericJob{};
    j.behaviour = {};
    j.compacted = true;
  }

  // ---- operations ----
  JobRecord* job_named(const std::string& name) {
    auto it = job_by_key.find(name);
    if (it == job_by_key.end()) it = job_by_key.find(sc.default_namespace + "/" + name);
    return it == job_by_key.end() ? nullptr : &jobs[it->second];
  }

  void operation(const scenarios::Operation& op) {
    using T = scenarios::OperationType;
    auto need_job = [&]() -> JobRecord& {
      JobRecord* j = job_named(op.target);
      if (!j) throw ScenarioError(fmt::format("operation {} at {}: no job named '{}'", scenarios::to_string(op.type),
                                              kernel::format_seconds(op.at), op.target));
      return *j;
    };
    auto need_node = [&]() -> model::Node& {
      auto it = nodes.find(op.target);
      if (it == nodes.end()) throw ScenarioError(fmt::format("operation {}: no node named '{}'", scenarios::to_string(op.type), op.target));
      return it->second;
    };
    switch (op.type) {
      case T::PauseJob:
      case T::ResumeJob: {
        JobRecord& j = need_job();
        std::visit([&](auto& x) { x.spec.run_mode.pause.enabled = op.type == T::PauseJob; }, j.job);
        if (op.type == T::PauseJob) j.pending_cause = LossCause::Pause;
        enqueue_reconcile(j.id);
        evaluate_training(j);
        break;
      }
      case T::SetExpectedReplicas: {
        JobRecord& j = need_job();
        set_expected(j, *op.expected_replicas);
        break;
      }
      case T::CloseQueue:
      case T::OpenQueue: {
        auto it = queues.find(op.target);
        if (it == queues.end()) throw ScenarioError("operation on unknown queue " + op.target);
        it->second.spec.closed = op.type == T::CloseQueue;
        snap.upsert_queue(it->second);
        publish(model::QueueChanged{op.target, it->second.spec.closed});
        request_cycle();
        break;
      }
      case T::DrainNode: drain(need_node(), "drain"); break;
      case T::CordonNode:
      case T::UncordonNode: {
        auto& n = need_node();
        n.unschedulable = op.type == T::CordonNode;
        snap.upsert_node(n);
        publish(model::NodeChanged{n.metadata.name, n.ready, n.unschedulable, gpu_milli_of(n.allocatable),
                                   n.unschedulable ? "cordon" : "uncordon"});
        request_cycle();
        break;
      }
      case T::AddNodePool: {
        const auto& pool = *op.node_pool;
        for (std::int32_t i = 0; i < pool.count; ++i) add_node(pool, i, node_counter++);
        request_cycle();
        break;
      }
      case T::RemoveNodePool: {
        std::vector<std::string> names;
        for (const auto& [name, n] : nodes) {
          if (name.rfind(op.target + "-", 0) == 0) names.push_back(name);
        }
        for (const auto& name : names) {
          drain(nodes.at(name), "removed");
          // Pods still terminating keep their binding until gone (snapshot contract).
          snap.remove_node(name);
          nodes.erase(name);
        }
        break;
      }
    }
  }

  void drain(model::Node& n, const std::string& cause) {
    n.unschedulable = true;
    snap.upsert_node(n);
    publish(model::NodeChanged{n.metadata.name, n.ready, true, gpu_milli_of(n.allocatable), cause});
    const std::set<std::string> keys = node_pods[n.metadata.name];
    for (const auto& key : keys) {
      auto [j, p] = pod_ref(key);
      if (terminated(*p)) continue;
      delete_pod(*j, p->metadata.name, model::DeletionReason::Drain);
      enqueue_reconcile(j->id);
    }
  }

  void set_expected(JobRecord& j, std::int32_t n) {
    std::visit(
        [&](auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (!std::is_same_v<X, model::GenericJob>) {
            if (x.spec.elastic) x.spec.elastic->expected_replicas = n;
          }
        },
        j.job);
    if (j.shape.elastic) j.shape.expected = std::clamp(n, j.shape.min, j.shape.max);
    enqueue_reconcile(j.id);
  }

  // Greedy elastic policy (issue 6 §5): grow toward maxReplicas while GPUs are idle and nothing
  // of higher or equal queue priority waits; shrink toward minReplicas when such work is pending.
  void elastic_policy() {
    std::int64_t free_gpus = 0;
    for (const auto& [name, n] : nodes) {
      if (!n.ready || n.unschedulable) continue;
      const std::int64_t used = gpus_in_use(name);
      free_gpus += std::max<std::int64_t>(0, gpus_of(n.allocatable) - used);
    }
    // Pending pods' queue priorities.
    std::vector<std::pair<std::int32_t, JobId>> waiting;
    for (const auto& j : jobs) {
      if (!j.submitted) continue;
      for (const auto& p : j.pods) {
        if (live(p) && p.node_name.empty()) {
          const auto q = queues.find(j.queue);
          waiting.emplace_back(q == queues.end() ? 0 : q->second.spec.priority, j.id);
          break;
        }
      }
    }
    for (auto& j : jobs) {
      if (!j.submitted || !j.shape.elastic) continue;
      const auto& status = model::status_of(j.job);
      if (status.phase && model::is_terminal(*status.phase)) continue;
      const auto q = queues.find(j.queue);
      const std::int32_t prio = q == queues.end() ? 0 : q->second.spec.priority;
      bool pressure = false;
      for (const auto& [wp, wid] : waiting) pressure = pressure || (wid != j.id && wp >= prio);
      const std::int32_t cur = j.shape.expected;
      std::int32_t want = cur;
      const std::int64_t per_pod = std::max<std::int64_t>(1, j.shape.gpus_per_first_pod);
      if (pressure) {
        want = j.shape.min;
      } else if (free_gpus >= per_pod) {
        const auto grow = static_cast<std::int32_t>(std::min<std::int64_t>(j.shape.max - cur, free_gpus / per_pod));
        want = cur + std::max(0, grow);
        free_gpus -= static_cast<std::int64_t>(want - cur) * per_pod;
      }
      if (want != cur) set_expected(j, want);
    }
    if (k.now() + st.elastic_policy_period <= horizon()) {
      k.schedule_in(st.elastic_policy_period, kPhaseOps, kElasticPolicy, 0, [this] { elastic_policy(); });
    }
  }

  // At the horizon, work since the last checkpoint of a running segment counts as productive:
  // it was neither lost nor wasted, the run just ended (docs/outputs.md).
  void finish() {
    for (auto& j : jobs) {
      if (!j.tr.active) continue;
      const Progress pr = segment_progress(j);
      const std::int64_t e = pr.kept_us + pr.since_checkpoint_us;
      if (e > 0) publish(model::ProgressCommitted{j.id, gpu_time(e, j.tr.gpu_milli)});
    }
  }

  void start() {
    build_cluster();
    queue_submissions();
    for (std::size_t i = 0; i < sc.operations.size(); ++i) {
      const auto& op = sc.operations[i];
      k.schedule_at(op.at, kPhaseOps, kOperation, i, [this, i] { operation(sc.operations[i]); });
    }
    if (st.elastic_policy == ElasticPolicy::Greedy) {
      k.schedule_at(SimTime{}, kPhaseOps, kElasticPolicy, 0, [this] { elastic_policy(); });
    }
  }
};

// ---------------------------------------------------------------------------------------------

World::World(const scenarios::Scenario& scenario, std::uint64_t replication, Sink sink)
    : World(scenario, replication, std::move(sink), settings_from_scenario(scenario)) {}

World::World(const scenarios::Scenario& scenario, std::uint64_t replication, Sink sink,
             WorldSettings settings)
    : impl_(std::make_unique<Impl>(scenario, replication, std::move(sink), std::move(settings))) {
  impl_->start();
}

World::~World() = default;

void World::run(const std::function<void(double)>& progress) {
  if (!progress) {
    impl_->k.run_until(impl_->horizon());
  } else {
    // Stepping the clock in slices dispatches the same events in the same order.
    const auto h = impl_->horizon().time_since_epoch().count();
    for (int i = 1; i <= 100; ++i) {
      impl_->k.run_until(SimTime{SimDuration{h / 100 * i + (i == 100 ? h % 100 : 0)}});
      progress(i / 100.0);
    }
  }
  impl_->finish();
}

SimTime World::now() const { return impl_->k.now(); }
std::uint64_t World::fingerprint() const { return impl_->k.fingerprint(); }
std::uint64_t World::events_dispatched() const { return impl_->k.dispatched(); }

std::vector<JobOutcome> World::outcomes() const {
  std::vector<JobOutcome> out;
  for (const auto& j : impl_->jobs) out.push_back(impl_->outcome_of(j));
  return out;
}

const model::Job* World::find_job(const std::string& name) const {
  auto* self = const_cast<Impl*>(impl_.get());
  auto* j = self->job_named(name);
  return j && !j->compacted ? &j->job : nullptr;
}

}  // namespace t9k::sim
