// The classic hold model: n pending events; each step pops the earliest and pushes one at a
// random later time. Our EventQueue (with callbacks in slots, phases and cancellable handles)
// against a plain std::priority_queue of (time, sequence) pairs as the baseline.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "kernel/event_queue.hpp"
#include "kernel/kernel.hpp"
#include "kernel/random.hpp"

using namespace t9k::kernel;

namespace {

// Exponential increments with mean 1 s, pre-drawn so the RNG is not measured.
std::vector<std::int64_t> increments(std::size_t n) {
  Rng r(12345);
  const Exponential e(1.0);
  std::vector<std::int64_t> v(n);
  for (auto& x : v) x = 1 + static_cast<std::int64_t>(e(r) * 1e6);
  return v;
}

constexpr std::size_t kIncrements = 1 << 20;

void BM_HoldEventQueue(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto inc = increments(kIncrements);
  EventQueue q;
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i)
    q.push(at(SimDuration{inc[k++ % kIncrements]}), 0, 1, i, nullptr);
  DispatchedEvent info{};
  Callback cb;
  for (auto _ : state) {
    q.pop(info, cb);
    q.push(info.time + SimDuration{inc[k++ & (kIncrements - 1)]}, 0, 1, info.key, nullptr);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_HoldPriorityQueue(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto inc = increments(kIncrements);
  using Item = std::pair<std::int64_t, std::uint64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q;
  std::size_t k = 0;
  std::uint64_t seq = 0;
  for (std::size_t i = 0; i < n; ++i) q.emplace(inc[k++ % kIncrements], seq++);
  for (auto _ : state) {
    const Item top = q.top();
    q.pop();
    q.emplace(top.first + inc[k++ & (kIncrements - 1)], seq++);
  }
  state.SetItemsProcessed(state.iterations());
}

// The whole kernel: dispatch with clock, observers-free fingerprint and a callback that
// re-schedules itself (what a simulation really does per event).
void BM_HoldKernelDispatch(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto inc = increments(kIncrements);
  Kernel kern;
  std::size_t k = 0;
  std::function<void()> hold;
  hold = [&] {
    const auto d = SimDuration{inc[k++ & (kIncrements - 1)]};
    kern.schedule_in(d, 0, 1, k, hold);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const auto d = SimDuration{inc[k++ % kIncrements]};
    kern.schedule_in(d, 0, 1, i, hold);
  }
  for (auto _ : state) kern.step();
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(BM_HoldEventQueue)->Arg(1000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_HoldPriorityQueue)->Arg(1000)->Arg(100000)->Arg(1000000);
BENCHMARK(BM_HoldKernelDispatch)->Arg(1000)->Arg(100000)->Arg(1000000);

BENCHMARK_MAIN();
