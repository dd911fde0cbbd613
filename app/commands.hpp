// The command line's frame: every t9ksim command registers its subcommand, its options and what
// runs it (add_*_command, each beside its code), and Commands parses the arguments and runs the
// chosen one. Exit codes: runs/exit_codes.hpp.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "runs/plan.hpp"

namespace t9k::app {

class Commands {
 public:
  explicit Commands(const std::string& description);

  // A subcommand; the caller adds its options to the returned app, and says with on() what runs
  // it once its options are parsed (an exit code).
  CLI::App* add(const std::string& name, const std::string& description);
  void on(CLI::App* command, std::function<int()> run);
  CLI::App& app() { return app_; }

  // `t9ksim plan CMD ARGS...` runs CMD with a plan request set (runs/plan.hpp): run, compare and
  // sweep then write their work as a plan instead of running it. Empty otherwise.
  std::optional<runs::PlanRequest>& plan_request() { return plan_; }

  // Parses argv (after `t9ksim plan`'s own arguments) and runs the chosen command. Unknown
  // commands, usage errors and exceptions become a message and the exit code.
  int run(int argc, char** argv);

 private:
  CLI::App app_;
  std::vector<std::pair<CLI::App*, std::function<int()>>> commands_;
  std::optional<runs::PlanRequest> plan_;
};

// Every command of t9ksim, in the order of `t9ksim --help` (each defined in its command's file).
void add_selfcheck_command(Commands& c);
void add_validate_command(Commands& c);
void add_run_command(Commands& c);
void add_report_command(Commands& c);
void add_diff_command(Commands& c);
void add_compare_command(Commands& c);
void add_sweep_command(Commands& c);
void add_size_command(Commands& c);
void add_plugin_command(Commands& c);
void add_import_command(Commands& c);
void add_replay_check_command(Commands& c);
void add_forecast_commands(Commands& c);  // forecast and fit
void add_test_command(Commands& c);
void add_generate_command(Commands& c);
void add_plan_commands(Commands& c);  // plan, shard, merge

// The arguments of `t9ksim plan CMD ARGS... --out PLAN [--no-pilot]`: CMD's own arguments, with
// --out naming the plan folder. Sets the request and returns the arguments CMD parses (without
// "plan" and --no-pilot), or an exit code (plan_command.cpp).
std::variant<int, std::vector<std::string>> plan_arguments(int argc, char** argv,
                                                           runs::PlanRequest& req);

}  // namespace t9k::app
