#include "app/options.hpp"

#include <cstdio>
#include <exception>
#include <limits>

#include <fmt/format.h>

#include "app/cli_numbers.hpp"
#include "app/commands.hpp"
#include "kernel/time.hpp"

namespace t9k::app {

void PluginOptions::add_to(CLI::App* cmd) {
  cmd->add_option(
      "--plugin", specs,
      "KIND=COMMAND: run a controller (KIND GenericJob, PyTorchTrainingJob, DeepSpeedJob, or "
      "controllers for all three) or the elastic policy (KIND elastic-policy) in a plugin "
      "process "
      "(docs/plugins.md); repeatable");
  cmd->add_option("--plugin-timeout", timeout, "How long a plugin may take to answer one request")
      ->capture_default_str();
}

bool PluginOptions::runner(const char* command, runs::RunOne& out) const {
  runs::RunOneOptions each;
  if (const auto err = parse(each.plugins); !err.empty()) {
    fmt::print(stderr, "t9ksim {}: {}\n", command, err);
    return false;
  }
  out = [each](const std::string& text, const std::string& file, std::uint64_t replication,
               const std::string& out_dir) {
    return runs::run_one(text, file, replication, out_dir, each);
  };
  return true;
}

std::string PluginOptions::parse(std::vector<runs::PluginArg>& out) const {
  kernel::SimDuration t{};
  try {
    t = kernel::parse_duration(timeout);
  } catch (const std::exception& e) {
    return fmt::format("--plugin-timeout {}: {}", timeout, e.what());
  }
  if (t.count() <= 0) return fmt::format("--plugin-timeout {}: must be longer than 0s", timeout);
  for (const auto& s : specs) {
    runs::PluginArg a;
    if (auto err = runs::parse_plugin_arg(s, t, a)) return *err;
    out.push_back(std::move(a));
  }
  return "";
}

void add_set_option(CLI::App* cmd, std::vector<std::string>& sets) {
  cmd->add_option(
         "--set", sets,
         "PATH=VALUE: change a scenario field, e.g. cluster.nodePools[name=h100].count=56 or "
         "scheduler.queues[name=production].spec.quota.requests.nvidia\\.com/gpu=256 (paths are "
         "relative to spec; docs/scenario-format.md); repeatable, applied in order")
      ->allow_extra_args(
          false);  // one value per --set, so `run --set a=1 FILE` keeps FILE positional
}

void add_max_jobs_option(CLI::App* cmd, std::int64_t& value) {
  cmd->add_option(
         "--max-jobs", value,
         "Refuse a scenario expected to submit more jobs than this per replication (generators' "
         "rate x horizon, trace rows)")
      ->capture_default_str()
      ->transform(whole_number(1, kMaxJobsBudget));
}

CLI::Validator seed_number() { return whole_number(0, std::numeric_limits<std::uint64_t>::max()); }
CLI::Validator replications_number() { return whole_number(1, kMaxReplications); }
CLI::Validator replication_number() { return whole_number(0, kMaxReplicationNumber); }
CLI::Validator threads_number() { return whole_number(0, kMaxThreads); }

}  // namespace t9k::app
