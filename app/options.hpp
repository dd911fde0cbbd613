// Options several commands take, registered the same way everywhere: --plugin and
// --plugin-timeout, --set, --max-jobs, and the validators of numbers (app/cli_numbers.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "runs/plugin_args.hpp"
#include "runs/run_one.hpp"

namespace t9k::app {

// --plugin KIND=COMMAND (repeatable) and --plugin-timeout on run, compare, sweep and size.
struct PluginOptions {
  std::vector<std::string> specs;
  std::vector<std::string> references;  // --reference (differential testing)
  std::string timeout = "10s";
  void add_to(CLI::App* cmd);
  // The runner of a batch command (compare, sweep, size): run_one with these plugins. False, after
  // printing why, when the options are bad. `variants`: compare's variants ("base" first), one
  // of which every --plugin must name (a plugin replacing code in all of them would compare
  // nothing); empty for the other commands, which refuse a variant prefix.
  // `base`: what every run gets besides the plugins (the command's --set and --target, recorded
  // in every run's summary).
  bool runner(const char* command, runs::RunOne& out, const std::vector<std::string>& variants = {},
              const runs::RunOneOptions& base = {}) const;
  // Fills out's plugins and references; empty on success, else the message.
  std::string parse(runs::RunOneOptions& out, const std::vector<std::string>& variants = {}) const;
};

// --set PATH=VALUE (repeatable) on run, compare, sweep and size.
void add_set_option(CLI::App* cmd, std::vector<std::string>& sets);

// --max-jobs (docs/reliability.md "Scenario budgets"): the estimate of jobs per replication a run
// may have.
void add_max_jobs_option(CLI::App* cmd, std::int64_t& value);

// Numbers on the command line (docs/reliability.md): decimal digits within documented limits.
CLI::Validator seed_number();
CLI::Validator replications_number();
CLI::Validator replication_number();
CLI::Validator threads_number();

}  // namespace t9k::app
