#include "kernel/selfcheck.hpp"

#include <cmath>
#include <deque>

#include <fmt/format.h>

#include "kernel/hash.hpp"

#include "kernel/kernel.hpp"
#include "kernel/random.hpp"

namespace t9k::kernel {

SelfCheckResult run_selfcheck(std::uint64_t seed, std::uint64_t customers) {
  // lambda = 0.8/s, mu = 1/s: Wq = 0.8 / (1 - 0.8) = 4 s.
  constexpr double kLambda = 0.8;
  constexpr double kMu = 1.0;
  Kernel k;
  RngStreams streams(seed, 0);
  Rng arrivals = streams.stream("selfcheck/arrivals");
  Rng services = streams.stream("selfcheck/services");
  const Exponential inter(kLambda);
  const Exponential service(kMu);
  auto draw = [](const Exponential& d, Rng& r) {
    return SimDuration{std::max<std::int64_t>(1, std::llround(d(r) * 1e6))};
  };

  std::deque<SimTime> queue;  // arrival times of waiting customers
  bool busy = false;
  std::uint64_t arrived = 0;
  std::uint64_t departed = 0;
  Int128 total_wait_us = 0;
  Int128 total_sojourn_us = 0;
  Int128 area_us = 0;  // integral of number-in-system
  std::int64_t in_system = 0;
  SimTime last_change{};
  SimTime served_arrival{};
  auto account = [&](SimTime now) {
    area_us += static_cast<Int128>(in_system) * (now - last_change).count();
    last_change = now;
  };

  enum : EventKind { kArrival = 1, kDeparture = 2 };
  std::function<void()> start_service;
  std::function<void()> on_arrival = [&] {
    const SimTime now = k.now();
    account(now);
    ++in_system;
    ++arrived;
    queue.push_back(now);
    if (!busy) start_service();
    if (arrived < customers) k.schedule_in(draw(inter, arrivals), 0, kArrival, arrived, on_arrival);
  };
  std::function<void()> on_departure = [&] {
    const SimTime now = k.now();
    account(now);
    --in_system;
    ++departed;
    total_sojourn_us += (now - served_arrival).count();
    busy = false;
    if (!queue.empty()) start_service();
  };
  start_service = [&] {
    const SimTime now = k.now();
    served_arrival = queue.front();
    queue.pop_front();
    total_wait_us += (now - served_arrival).count();
    busy = true;
    k.schedule_in(draw(service, services), 0, kDeparture, departed, on_departure);
  };
  k.schedule_at(SimTime{}, 0, kArrival, 0, on_arrival);
  k.run();

  SelfCheckResult r;
  r.customers = departed;
  r.events = k.dispatched();
  r.fingerprint = k.fingerprint();
  r.mean_wait_s = static_cast<double>(total_wait_us) / 1e6 / static_cast<double>(departed);
  r.analytic_wait_s = (kLambda / kMu) / (kMu - kLambda);
  r.littles_law_exact = (area_us == total_sojourn_us) && in_system == 0;
  // M/M/1 at rho = 0.8 is strongly autocorrelated; 10 % is a generous tolerance at 200k customers.
  const double rel = std::abs(r.mean_wait_s - r.analytic_wait_s) / r.analytic_wait_s;
  r.ok = r.littles_law_exact && departed == customers && rel < 0.10;
  r.message = fmt::format(
      "M/M/1 rho=0.8: {} customers, {} events, mean wait {:.3f} s (analytic {:.3f} s, {:+.1f} %), "
      "Little's law {}",
      departed, r.events, r.mean_wait_s, r.analytic_wait_s,
      100 * (r.mean_wait_s - r.analytic_wait_s) / r.analytic_wait_s,
      r.littles_law_exact ? "exact" : "VIOLATED");
  return r;
}

}  // namespace t9k::kernel
