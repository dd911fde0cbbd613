#include "runs/batch.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "analysis/progress.hpp"
#include "runs/exit_codes.hpp"

namespace t9k::runs {

int run_batch(const std::vector<BatchRun>& runs, const RunOne& run_one,
              const std::string& scenario_file, unsigned threads, const char* what, bool quiet) {
  if (runs.empty()) return kExitOk;
  threads = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, runs.size()));
  std::atomic<std::size_t> next{0};
  std::vector<int> codes(runs.size(), kExitOk);
  analysis::Progress progress(runs.size(), what, stderr,
                              !quiet && analysis::Progress::stderr_is_terminal());
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        for (std::size_t i; (i = next.fetch_add(1)) < runs.size();) {
          const BatchRun& r = runs[i];
          try {
            codes[i] = run_one(*r.text, scenario_file, r.replication, r.dir.string(), r.label);
          } catch (const std::exception& e) {
            fmt::print(stderr, "t9ksim: error: {} replication {}: {}\n", r.label, r.replication,
                       e.what());
            codes[i] = kExitError;
          }
          progress.advance();
        }
      });
    }
  }
  progress.finish();
  int worst = kExitOk;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (codes[i] != kExitOk) {
      fmt::print(stderr, "t9ksim: {} replication {} failed (exit {})\n", runs[i].label,
                 runs[i].replication, codes[i]);
      worst = std::max(worst, codes[i]);
    }
  }
  return worst;
}

}  // namespace t9k::runs
