// t9ksim: the command line. Exit codes: 0 success, 1 simulation or internal error, 2 bad usage
// or bad input.
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "app/version.hpp"
#include "sim/kernel/kernel.hpp"
#include "sim/kernel/selfcheck.hpp"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

int run_selfcheck(std::uint64_t seed) {
  const auto r = t9k::kernel::run_selfcheck(seed);
  fmt::print("kernel self-check: {}\n", r.message);
  fmt::print("fingerprint: {}\n", t9k::kernel::format_fingerprint(r.fingerprint));
  fmt::print("{}\n", r.ok ? "ok" : "FAILED");
  return r.ok ? kExitOk : kExitError;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"t9ksim: a discrete-event simulator of the T9k job system "
               "(batch.tensorstack.dev/v1beta1)"};
  app.set_version_flag("--version", std::string("t9ksim ") + T9KSIM_VERSION);
  app.require_subcommand(0, 1);

  std::uint64_t seed = 1;
  auto* selfcheck = app.add_subcommand(
      "selfcheck", "Run the kernel self-check (an M/M/1 queue against its analytic wait)");
  selfcheck->add_option("--seed", seed, "Random seed")->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  try {
    if (*selfcheck) return run_selfcheck(seed);
    fmt::print("{}", app.help());
    return kExitOk;
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return kExitError;
  }
}
