// A kernel self-check: an M/M/1 queue driven through the event queue and named streams,
// compared with its analytic mean wait, and Little's law checked exactly on integer time.
#pragma once

#include <cstdint>
#include <string>

namespace t9k::kernel {

struct SelfCheckResult {
  std::uint64_t customers = 0;
  std::uint64_t events = 0;
  double mean_wait_s = 0;          // simulated mean time in queue
  double analytic_wait_s = 0;      // Wq = rho / (mu - lambda)
  bool littles_law_exact = false;  // integral of N(t) == sum of sojourn times, in microseconds
  std::uint64_t fingerprint = 0;
  bool ok = false;
  std::string message;
};

SelfCheckResult run_selfcheck(std::uint64_t seed, std::uint64_t customers = 200000);

}  // namespace t9k::kernel
