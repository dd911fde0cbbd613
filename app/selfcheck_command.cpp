// `t9ksim selfcheck`: the kernel's self-check (an M/M/1 queue against its analytic wait).
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "kernel/kernel.hpp"
#include "kernel/selfcheck.hpp"
#include "runs/exit_codes.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

namespace {

int run_selfcheck(std::uint64_t seed) {
  const auto r = kernel::run_selfcheck(seed);
  fmt::print("kernel self-check: {}\n", r.message);
  fmt::print("fingerprint: {}\n", kernel::format_fingerprint(r.fingerprint));
  fmt::print("{}\n", r.ok ? "ok" : "FAILED");
  return r.ok ? runs::kExitOk : runs::kExitError;
}

}  // namespace

void add_selfcheck_command(Commands& c) {
  auto seed = std::make_shared<std::uint64_t>(1);
  auto* selfcheck =
      c.add("selfcheck", "Run the kernel self-check (an M/M/1 queue against its analytic wait)");
  selfcheck->add_option("--seed", *seed, "Random seed")
      ->capture_default_str()
      ->transform(seed_number());
  c.on(selfcheck, [seed] { return run_selfcheck(*seed); });
}

}  // namespace t9k::app
