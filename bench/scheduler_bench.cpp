// One scheduling cycle with 10,000 pending PodGroups on 2,000 nodes (issue 5 "Scale": target
// under 20 ms per cycle). The snapshot is built once, as the world keeps it; each iteration is
// a whole cycle (schedule() does not mutate the snapshot, so every iteration does the same work).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

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

}  // namespace

BENCHMARK_MAIN();
