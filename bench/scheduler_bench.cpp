// Scheduler cycles (docs/performance.md, scheduler section):
//  * BM_SchedulerCycle: one cycle with 10,000 pending PodGroups on 2,000 nodes (issue 5 "Scale":
//    target under 20 ms per cycle). The snapshot is built once, as the world keeps it; each
//    iteration is a whole cycle (schedule() does not mutate the snapshot, so every iteration does
//    the same work).
//  * BM_WorldLikeCycle: the world's common case, one job ending per cycle on a full 1,024 x 8 GPU
//    cluster with 2,000 pending groups (target under 50 µs per cycle).
//  * BM_SnapshotBindRelease: the world's side of a binding and a release.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/scheduler.hpp"
#include "scheduler/snapshot.hpp"

using namespace t9k::scheduler;
namespace model = t9k::model;

namespace {

model::ResourceList res(std::int64_t cpu, std::int64_t gpu, std::int64_t mem_gi) {
  model::ResourceList r;
  r[model::kResourceCpu] = model::Quantity::from_units(cpu);
  if (gpu) r[model::kResourceGpu] = model::Quantity::from_units(gpu);
  r[model::kResourceMemory] = model::Quantity::from_units(mem_gi << 30);
  return r;
}

model::SimTime sec(std::int64_t s) { return model::SimTime{t9k::kernel::seconds(s)}; }

// 2,000 nodes of 8 GPUs in racks of 20 (10 racks per switch); `busy_share` of them full, the
// rest half full. 20 queues (priorities 0-3, half with GPU quotas). `groups` pending PodGroups
// of 1, 2 or 4 pods of 1, 2, 4 or 8 GPUs, spread over the queues.
void build(ClusterSnapshot& snap, int nodes, int groups, int free_nodes) {
  std::int64_t t = 0;
  for (int i = 0; i < nodes; ++i) {
    model::Node n;
    n.metadata.name = "node-" + std::to_string(i);
    n.metadata.labels[model::kLabelRack] = "rack-" + std::to_string(i / 20);
    n.metadata.labels[model::kLabelSwitch] = "switch-" + std::to_string(i / 200);
    n.capacity = n.allocatable = res(96, 8, 768);
    snap.upsert_node(n);
  }
  for (int q = 0; q < 20; ++q) {
    model::Queue queue;
    queue.metadata.name = "queue-" + std::to_string(q);
    queue.spec.priority = q % 4;
    if (q % 2 == 0) queue.spec.quota = res(100000, 2000, 1000000);
    snap.upsert_queue(queue);
  }
  // Running load: one group per node, 8 GPUs on busy nodes, 4 on the others.
  for (int i = 0; i < nodes; ++i) {
    const std::string g = "running-" + std::to_string(i);
    model::PodGroup pg;
    pg.metadata.name = g;
    pg.metadata.creation_timestamp = sec(++t);
    pg.spec.queue = "queue-" + std::to_string(i % 20);
    pg.spec.min_member = 1;
    snap.upsert_pod_group(pg);
    model::Pod p;
    p.metadata.name = g + "-0";
    p.metadata.creation_timestamp = sec(++t);
    p.scheduler_name = model::kT9kSchedulerName;
    p.pod_group = g;
    p.requests = res(48, i < nodes - free_nodes ? 8 : 4, 256);
    p.node_name = "node-" + std::to_string(i);
    p.phase = model::PodPhase::Running;
    snap.upsert_pod(p);
  }
  const int sizes[] = {1, 2, 4};
  const int gpus[] = {1, 2, 4, 8};
  for (int k = 0; k < groups; ++k) {
    const std::string g = "pending-" + std::to_string(k);
    const int members = sizes[k % 3];
    const int gpu = gpus[(k / 3) % 4];
    model::PodGroup pg;
    pg.metadata.name = g;
    pg.metadata.creation_timestamp = sec(++t);
    pg.spec.queue = "queue-" + std::to_string((k * 7) % 20);
    pg.spec.min_member = members;
    pg.spec.priority = k % 5;
    snap.upsert_pod_group(pg);
    for (int m = 0; m < members; ++m) {
      model::Pod p;
      p.metadata.name = g + "-" + std::to_string(m);
      p.metadata.creation_timestamp = sec(++t);
      p.scheduler_name = model::kT9kSchedulerName;
      p.pod_group = g;
      p.requests = res(4 * gpu, gpu, 32 * gpu);
      snap.upsert_pod(p);
    }
  }
}

void BM_SchedulerCycle(benchmark::State& state) {
  ClusterSnapshot snap;
  build(snap, static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
        static_cast<int>(state.range(2)));
  SchedulerOptions o;
  o.preemption = state.range(3) != 0;
  Scheduler s(o);
  std::size_t bindings = 0, evictions = 0;
  for (auto _ : state) {
    const Decisions d = s.schedule(snap, sec(1000000));
    bindings = d.bindings.size();
    evictions = d.evictions.size();
    benchmark::DoNotOptimize(d);
  }
  state.counters["bindings"] = static_cast<double>(bindings);
  state.counters["evictions"] = static_cast<double>(evictions);
}
// nodes, pending groups, half-free nodes, preemption
BENCHMARK(BM_SchedulerCycle)
    ->ArgNames({"nodes", "groups", "free_nodes", "preempt"})
    ->Args({2000, 10000, 0, 0})
    ->Args({2000, 10000, 100, 0})
    ->Args({2000, 10000, 100, 1})
    ->Unit(benchmark::kMillisecond);

// The world's side: one bind and one release of a pod (two index updates each).
void BM_SnapshotBindRelease(benchmark::State& state) {
  ClusterSnapshot snap;
  build(snap, 2000, 10000, 100);
  const std::string pod = "pending-0-0";
  for (auto _ : state) {
    snap.bind(pod, "node-1999");
    snap.release(pod, true);
    state.PauseTiming();
    model::Pod p;  // back to pending for the next iteration
    p.metadata.name = pod;
    p.metadata.creation_timestamp = sec(3000);
    p.scheduler_name = model::kT9kSchedulerName;
    p.pod_group = "pending-0";
    p.requests = res(4, 1, 32);
    snap.upsert_pod(p);
    state.ResumeTiming();
  }
}
BENCHMARK(BM_SnapshotBindRelease)->Unit(benchmark::kMicrosecond);

// The world's common case (issue 6 §11 run: 1,024 nodes x 8 GPUs at ~86 % load): the cluster
// is full, ~2,000 PodGroups wait in two queues (research: 1- and 8-GPU single pods; production:
// 4 x 8 and 8 x 8 GPU gangs, held at its GPU quota so they are blocked), preemption is on.
// Each iteration is what the world does between two cycles when one job ends: one running
// research pod is released and removed, one cycle runs, its bindings are applied, and every
// bound group is replaced by a new pending one of the same shape (so the load stays the same).
struct WorldLike {
  ClusterSnapshot snap;
  std::int64_t t = 0;
  std::int64_t next = 0;
  std::vector<std::string> ring;  // running research pods, oldest first
  std::size_t head = 0;
  std::unordered_map<std::string, int> shape_of;  // pending group -> GPUs per pod

  void group(const std::string& g, const std::string& queue, int members, int gpu,
             const std::string& node) {
    model::PodGroup pg;
    pg.metadata.name = g;
    pg.metadata.creation_timestamp = sec(++t);
    pg.spec.queue = queue;
    pg.spec.min_member = members;
    snap.upsert_pod_group(pg);
    for (int m = 0; m < members; ++m) {
      model::Pod p;
      p.metadata.name = g + "-" + std::to_string(m);
      p.metadata.creation_timestamp = sec(t);
      p.scheduler_name = model::kT9kSchedulerName;
      p.pod_group = g;
      p.requests = res(4 * gpu, gpu, 32 * gpu);
      if (!node.empty()) {
        p.node_name = node;
        p.phase = model::PodPhase::Running;
      }
      snap.upsert_pod(p);
    }
    if (node.empty()) shape_of[g] = gpu;
  }

  void pending(const std::string& queue, int members, int gpu) {
    group("p" + std::to_string(next++), queue, members, gpu, "");
  }

  explicit WorldLike(int pending_groups) {
    for (int i = 0; i < 1024; ++i) {
      model::Node n;
      n.metadata.name = "node-" + std::to_string(i);
      n.metadata.labels[model::kLabelRack] = "rack-" + std::to_string(i / 16);
      n.metadata.labels[model::kLabelSwitch] = "switch-" + std::to_string(i / 64);
      n.capacity = n.allocatable = res(192, 8, 2048);
      snap.upsert_node(n);
    }
    model::Queue prod;
    prod.metadata.name = "production";
    prod.spec.priority = 10;
    prod.spec.preemptible = false;
    prod.spec.quota = model::ResourceList{{model::kResourceGpu, model::Quantity::from_units(6144)}};
    snap.upsert_queue(prod);
    model::Queue research;
    research.metadata.name = "research";
    research.spec.priority = 1;
    snap.upsert_queue(research);
    // Production at its quota: 192 gangs of 4 x 8 GPUs on nodes 0-767. Research on the rest:
    // 128 nodes of eight 1-GPU pods, 128 nodes of one 8-GPU pod.
    for (int k = 0; k < 192; ++k)
      for (int m = 0; m < 4; ++m) {
        const std::string g = "run-prod-" + std::to_string(k);
        if (m == 0)
          group(g, "production", 4, 8, "node-" + std::to_string(4 * k));
        else {
          model::Pod p;
          p.metadata.name = g + "-" + std::to_string(m);
          p.metadata.creation_timestamp = sec(t);
          p.scheduler_name = model::kT9kSchedulerName;
          p.pod_group = g;
          p.requests = res(32, 8, 256);
          p.node_name = "node-" + std::to_string(4 * k + m);
          p.phase = model::PodPhase::Running;
          snap.upsert_pod(p);
        }
      }
    for (int i = 768; i < 1024; ++i) {
      const bool small = i % 2 == 0;
      for (int m = 0; m < (small ? 8 : 1); ++m) {
        const std::string g = "run-" + std::to_string(i) + "-" + std::to_string(m);
        group(g, "research", 1, small ? 1 : 8, "node-" + std::to_string(i));
        ring.push_back(g);
      }
    }
    // Pending, in arrival order: research 1 and 8 GPUs, production 32 and 64 GPUs.
    for (int k = 0; k < pending_groups; ++k) {
      switch (k % 10) {
        case 0:
        case 2:
        case 4:
          pending("research", 1, 1);
          break;
        case 1:
        case 5:
          pending("research", 1, 8);
          break;
        case 3:
        case 7:
        case 9:
          pending("production", 4, 8);
          break;
        default:
          pending("production", 8, 8);
          break;
      }
    }
  }

  // One job ends; returns the cycle's bindings.
  std::size_t step(Scheduler& s) {
    const std::string g = ring[head++];
    snap.release(g + "-0", true);
    snap.remove_pod(g + "-0");
    snap.remove_pod_group(g);
    const Decisions d = s.schedule(snap, sec(1000000 + t));
    for (const auto& b : d.bindings) snap.bind(b.pod, b.node);
    for (const auto& b : d.bindings) {
      const std::string bg = b.pod.substr(0, b.pod.rfind('-'));
      const auto it = shape_of.find(bg);
      if (it == shape_of.end()) continue;  // a gang's later member
      ring.push_back(bg);
      pending("research", 1, it->second);
      shape_of.erase(it);
    }
    if (head > 4096) {  // keep the ring small
      ring.erase(ring.begin(), ring.begin() + static_cast<std::ptrdiff_t>(head));
      head = 0;
    }
    return d.bindings.size();
  }
};

void BM_WorldLikeCycle(benchmark::State& state) {
  WorldLike w(static_cast<int>(state.range(0)));
  SchedulerOptions o;
  o.preemption = true;
  Scheduler s(o);
  benchmark::DoNotOptimize(s.schedule(w.snap, sec(1000000)));  // settles: nothing fits
  std::size_t bindings = 0;
  for (auto _ : state) bindings += w.step(s);
  state.counters["bindings_per_cycle"] =
      static_cast<double>(bindings) /
      static_cast<double>(std::max<std::int64_t>(1, state.iterations()));
  state.counters["pending_groups"] = static_cast<double>(w.shape_of.size());
}
// pending groups
BENCHMARK(BM_WorldLikeCycle)->ArgNames({"groups"})->Arg(2000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
