// Cluster and faults alone, over an in-memory store, with fakes for the kubelet, the reconcile
// queue and the scheduling trigger: nodes from pools on a topology, blast radii (GPU, node,
// switch subtree, faults-and-validation §1.2, §1.7), repairs and node operations.
#include "model/accelerators.hpp"
#include "tests/sim/support.hpp"

#include <algorithm>
#include <set>

#include "sim/cluster.hpp"

using namespace t9k;
using namespace t9k::sim;
using namespace t9k::sim::testing;

namespace {

std::string cluster_yaml(const std::string& pools, const std::string& topology) {
  return R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: cluster}
spec:
  horizon: 30d
  cluster:
    nodePools: )" +
         pools + "\n    topology: " + topology + R"(
  scheduler: {name: t9k}
  faults: {repairTime: 1h}
  workload:
    jobs:
)" + generic_job_yaml("train", 1, 8);
}

FaultProfile one_cause(BlastRadius radius, double node_per_day, double switch_per_day) {
  FaultProfile p;
  p.name = "test";
  p.node_failures_per_node_day = node_per_day;
  p.switch_failures_per_switch_day = switch_per_day;
  p.causes = {{radius == BlastRadius::Gpu ? "faulty-gpu" : "psu", 1, radius, 24}};
  return p;
}

struct Fixture {
  Log log, watched;
  std::vector<model::TimedChange> feed;
  kernel::Kernel k;
  scenarios::Scenario sc;
  WorldSettings st;
  kernel::RngStreams streams{3, 0};
  RecordingWatcher watcher{watched};
  Store store{k, [this](const model::TimedChange& c) { feed.push_back(c); }, "default"};
  FakePods pods{log};
  FakeReconciles reconciles{log};
  FakeCycles cycles{log};
  Cluster cluster{sc, st, k, streams, store, pods, reconciles, cycles};

  Fixture(const std::string& pools, const std::string& topology, FaultProfile faults = {})
      : sc(load(cluster_yaml(pools, topology))) {
    st.faults = std::move(faults);
    store.set_watcher(&watcher);
    for (EventKind kind : Cluster::kKinds) k.route(kind, &cluster);
    cluster.build();
  }
  // Steps the clock until the fakes were told something; false when nothing ever is.
  bool run_until_logged() {
    while (log.empty()) {
      if (!k.step()) return false;
    }
    return true;
  }
  // A pod of job "train" bound to `node`, using `gpus` GPUs.
  std::string pod_on(const std::string& node, int gpus, int rank = 0) {
    const JobId id = store.find_job("train") ? store.find_job("train")->id
                                             : store.add_job(sc.workload.jobs.at(0).job, "t");
    store.create_pod(id, worker_pod("train", rank, gpus));
    const std::string key = fmt::format("default/train-worker-{}", rank);
    store.bind_pod(key, node, -1);
    store.set_pod_running(id, key);
    return key;
  }
  std::vector<std::string> not_ready() const {
    std::vector<std::string> out;
    for (const auto& [name, n] : store.nodes()) {
      if (!n.ready) out.push_back(name);
    }
    return out;
  }
};

}  // namespace

TEST_CASE("cluster: nodes from pools take their rack and switch from the topology",
          "[sim][cluster]") {
  Fixture f(
      "[{name: a, count: 3, gpusPerNode: 8, gpuModel: H100, cpu: 64, memory: 512Gi}, {name: b, "
      "count: 2, gpusPerNode: 4, cpu: 64, memory: 512Gi}]",
      "{nodesPerRack: 2, racksPerSwitch: 2}");
  REQUIRE(f.store.nodes().size() == 5);
  const auto& labels = f.store.node("b-0")->metadata.labels;  // 4th node: rack 1, switch 0
  CHECK(labels.at(model::kLabelRack) == "rack-1");
  CHECK(labels.at(model::kLabelSwitch) == "switch-0");
  CHECK(labels.at(model::kLabelHostname) == "b-0");
  CHECK(f.store.node("a-0")->metadata.labels.at(model::kLabelGpuModel) == "H100");
  CHECK(f.store.node("b-1")->metadata.labels.at(model::kLabelSwitch) == "switch-1");
  const auto under = f.cluster.topology().subtree_nodes(model::Topology::Level::Switch, "switch-0");
  CHECK(std::set<std::string>(under.begin(), under.end()) ==
        std::set<std::string>{"a-0", "a-1", "a-2", "b-0"});
  CHECK(std::get<model::NodeChanged>(f.feed.front().change).cause == "added");
  CHECK(f.log.empty());  // no faults: nothing scheduled, nothing told
  CHECK(f.k.pending_events() == 0);
}

TEST_CASE("cluster: a switch failure takes down the switch's subtree until repaired",
          "[sim][cluster]") {
  Fixture f("[{name: a, count: 6, gpusPerNode: 8, cpu: 64, memory: 512Gi}]",
            "{nodesPerRack: 1, racksPerSwitch: 2}", one_cause(BlastRadius::Node, 0, 1));
  const std::string key = f.pod_on("a-2", 8);
  REQUIRE(f.run_until_logged());
  const auto down = f.not_ready();
  REQUIRE(down.size() == 2);  // one switch of 2 racks x 1 node
  CHECK(f.log.front() == fmt::format("nodes-lost {} network-switch", fmt::join(down, ",")));
  const auto sw = f.store.node(down.at(0))->metadata.labels.at(model::kLabelSwitch);
  for (const auto& name : down)
    CHECK(f.store.node(name)->metadata.labels.at(model::kLabelSwitch) == sw);
  const auto failed_at = f.k.now();
  // The repair (1 h later, the scenario's repairTime) brings them back and asks for a cycle.
  while (std::find(f.log.begin(), f.log.end(), "cycle") == f.log.end()) REQUIRE(f.k.step());
  CHECK(f.k.now() - failed_at == kernel::hours(1));
  for (const auto& name : down) CHECK(f.store.node(name)->ready);
}

TEST_CASE("cluster: a GPU fault fails the pod on it and withholds the GPU until repaired",
          "[sim][cluster]") {
  Fixture f("[{name: g, count: 1, gpusPerNode: 8, cpu: 64, memory: 512Gi}]", "{nodesPerRack: 16}",
            one_cause(BlastRadius::Gpu, 5, 0));
  f.pod_on("g-0", 8);  // every GPU busy: the failed GPU is the pod's
  REQUIRE(f.run_until_logged());
  CHECK(f.log == Log{"terminate 0 default/train-worker-0 Failed 137 fault", "enqueue 0"});
  CHECK(model::Accelerators().gpus_of(f.store.node("g-0")->allocatable) == 7);
  CHECK(f.store.node("g-0")->ready);  // the node stays up
  CHECK(std::get<model::NodeChanged>(f.feed.back().change).cause == "faulty-gpu");
  // The repair gives the GPU back and asks for a cycle (other GPUs may have failed meanwhile).
  const auto failed_at = f.k.now();
  while (std::find(f.log.begin(), f.log.end(), "cycle") == f.log.end()) REQUIRE(f.k.step());
  CHECK(f.k.now() - failed_at == kernel::hours(1));
  CHECK(std::get<model::NodeChanged>(f.feed.back().change).cause == "repair");
}

TEST_CASE("cluster: GPU faults never give back more GPUs than failed", "[sim][cluster]") {
  // A 1-GPU node failing 50 times a day with 1-hour repairs often has its only GPU down when the
  // next fault comes: that fault takes nothing, and its repair gives nothing back.
  Fixture f("[{name: g, count: 1, gpusPerNode: 1, cpu: 64, memory: 512Gi}]", "{nodesPerRack: 16}",
            one_cause(BlastRadius::Gpu, 50, 0));
  f.k.run_until(kernel::SimTime{kernel::days(10)});  // the store refuses allocatable > capacity
  int faults = 0, empty = 0;
  std::int64_t allocatable = 1000;
  for (const auto& c : f.feed) {
    const auto* n = std::get_if<model::NodeChanged>(&c.change);
    if (!n || n->cause == "added") continue;
    if (n->cause == "faulty-gpu") ++faults;
    if (n->cause == "faulty-gpu" && n->gpu_milli == allocatable) ++empty;
    allocatable = n->gpu_milli;
    CHECK(allocatable >= 0);
    CHECK(allocatable <= 1000);
  }
  CHECK(faults > 100);
  CHECK(empty == 0);  // a fault on a node without GPUs publishes no change
}

TEST_CASE("store: allocatable GPUs stay within capacity", "[sim][store]") {
  kernel::Kernel k;
  Log log;
  RecordingWatcher watcher(log);
  Store store(k, {}, "default");
  store.set_watcher(&watcher);
  store.add_node(gpu_node("n0", 2));
  store.add_allocatable_gpus("n0", -2, "faulty-gpu");
  CHECK_THROWS_AS(store.add_allocatable_gpus("n0", -1, "faulty-gpu"), InvariantViolation);
  CHECK_THROWS_WITH(store.add_allocatable_gpus("n0", 3, "repair"),
                    Catch::Contains("node n0 would offer 3 GPUs of its 2"));
}

TEST_CASE("cluster: a node fault takes only that node down and tells the kubelet",
          "[sim][cluster]") {
  Fixture f("[{name: n, count: 3, gpusPerNode: 8, cpu: 64, memory: 512Gi}]", "{nodesPerRack: 16}",
            one_cause(BlastRadius::Node, 2, 0));
  REQUIRE(f.run_until_logged());
  const auto down = f.not_ready();
  REQUIRE(down.size() == 1);
  CHECK(f.log == Log{"nodes-lost " + down.at(0) + " psu"});
}

TEST_CASE("cluster: each node's failures come from its own stream", "[sim][cluster]") {
  // Adding nodes does not move another node's failure times (named streams, design.md).
  auto failures_of = [](int nodes, const std::string& node) {
    Fixture f(
        "[{name: n, count: " + std::to_string(nodes) + ", gpusPerNode: 8, cpu: 64, memory: 512Gi}]",
        "{nodesPerRack: 16}", one_cause(BlastRadius::Node, 1, 0));
    f.k.run_until(kernel::SimTime{kernel::days(10)});
    std::vector<std::int64_t> times;
    for (const auto& c : f.feed) {
      const auto* n = std::get_if<model::NodeChanged>(&c.change);
      if (n && n->node == node && n->cause == "psu")
        times.push_back(c.time.time_since_epoch().count());
    }
    return times;
  };
  const auto alone = failures_of(1, "n-0");
  CHECK(alone.size() >= 3);  // 1 per day over 10 days, repairs of 1 h
  CHECK(failures_of(4, "n-0") == alone);
}

TEST_CASE("cluster: drain cordons the node and deletes its running pods", "[sim][cluster]") {
  Fixture f("[{name: n, count: 2, gpusPerNode: 8, cpu: 64, memory: 512Gi}]", "{nodesPerRack: 16}");
  f.pod_on("n-0", 4, 0);
  f.pod_on("n-0", 4, 1);
  f.pod_on("n-1", 4, 2);
  f.cluster.drain("n-0", "drain");
  CHECK(f.store.node("n-0")->unschedulable);
  CHECK(f.log == Log{"delete 0 train-worker-0 Drain", "enqueue 0", "delete 0 train-worker-1 Drain",
                     "enqueue 0"});
  f.log.clear();
  f.cluster.cordon("n-1", true);
  CHECK(f.store.node("n-1")->unschedulable);
  CHECK(f.log == Log{"cycle"});
  CHECK(std::get<model::NodeChanged>(f.feed.back().change).cause == "cordon");
}

TEST_CASE("cluster: removing a pool removes its nodes only, whatever their names",
          "[sim][cluster]") {
  // Pool "gpu-a" makes node "gpu-a-0", which starts like a node of pool "gpu".
  Fixture f(
      "[{name: gpu, count: 2, gpusPerNode: 8, cpu: 64, memory: 512Gi}, "
      "{name: gpu-a, count: 1, gpusPerNode: 8, cpu: 64, memory: 512Gi}]",
      "{nodesPerRack: 16}");
  f.cluster.remove_pool("gpu");
  CHECK(f.store.node("gpu-0") == nullptr);
  CHECK(f.store.node("gpu-1") == nullptr);
  REQUIRE(f.store.node("gpu-a-0") != nullptr);
  CHECK_FALSE(f.store.node("gpu-a-0")->unschedulable);
}

TEST_CASE("cluster: pools are added and removed while the cluster runs", "[sim][cluster]") {
  Fixture f("[{name: a, count: 2, gpusPerNode: 8, cpu: 64, memory: 512Gi}]", "{nodesPerRack: 2}");
  scenarios::NodePool pool = f.sc.cluster.node_pools.at(0);
  pool.name = "b";
  pool.count = 3;
  f.cluster.add_pool(pool);
  CHECK(f.store.nodes().size() == 5);
  CHECK(f.store.node("b-0")->metadata.labels.at(model::kLabelRack) == "rack-1");  // after a-0, a-1
  CHECK(f.log == Log{"cycle"});
  f.cluster.remove_pool("a");
  CHECK(f.store.nodes().size() == 3);
  CHECK(f.store.node("a-0") == nullptr);
  CHECK(f.watched.back() == "watch: node-removed a-1");
}
