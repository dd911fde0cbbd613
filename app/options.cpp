#include "app/options.hpp"

#include <algorithm>
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
      "process, or give the plugin of a kind of its own the scenario names another command "
      "(KIND <group>/<version>/<Kind>) (docs/plugins.md); repeatable");
  cmd->add_option("--plugin-timeout", timeout, "How long a plugin may take to answer one request")
      ->capture_default_str();
  cmd->add_option("--reference", references,
                  "builtin | KIND=builtin | KIND=COMMAND: answer every request to a plugin with "
                  "this reference too, and stop at the first answer that differs "
                  "(docs/plugins.md); repeatable");
}

bool PluginOptions::runner(const char* command, runs::RunOne& out,
                           const std::vector<std::string>& variants,
                           const runs::RunOneOptions& base) const {
  runs::RunOneOptions each = base;
  if (const auto err = parse(each, variants); !err.empty()) {
    fmt::print(stderr, "t9ksim {}: {}\n", command, err);
    return false;
  }
  out = [each](const std::string& text, const std::string& file, std::uint64_t replication,
               const std::string& out_dir, const std::string& unit) {
    return runs::run_one(text, file, replication, out_dir, each.for_unit(unit));
  };
  return true;
}

std::string PluginOptions::parse(runs::RunOneOptions& opt,
                                 const std::vector<std::string>& variants) const {
  auto& out = opt.plugins;
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
    if (variants.empty() && !a.variants.empty())
      return fmt::format("--plugin {}: a variant before ':' is for compare only", s);
    // "*:KIND=COMMAND": every variant, said so (the proof that a plugin changes nothing).
    const bool every = a.variants == std::vector<std::string>{"*"};
    if (every) a.variants.clear();
    if (!variants.empty() && a.variants.empty() && !every) {
      std::string names;
      for (const auto& v : variants) names += (names.empty() ? "" : ", ") + v;
      return fmt::format(
          "--plugin {}: say which variants it runs in ({}): --plugin VARIANT[,VARIANT...]:{}, or "
          "'*:{}' for every one (a plugin in every variant changes nothing between them)",
          s, names, s, s);
    }
    for (const auto& v : a.variants) {
      if (std::find(variants.begin(), variants.end(), v) == variants.end()) {
        std::string names;
        for (const auto& x : variants) names += (names.empty() ? "" : ", ") + x;
        return fmt::format("--plugin {}: no variant named \"{}\"; allowed: {}", s, v, names);
      }
    }
    out.push_back(std::move(a));
  }
  for (const auto& s : references) {
    runs::ReferenceArg r;
    if (auto err = runs::parse_reference_arg(s, t, r)) return *err;
    opt.references.push_back(std::move(r));
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
