// t9ksim: the command line. Each command registers its options and what runs it beside its code
// (app/commands.hpp); exit codes: 0 success, 1 simulation or internal error, 2 bad usage or bad
// input (runs/exit_codes.hpp).
#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "app/commands.hpp"

namespace {

using t9k::app::Commands;

struct Registrar {
  std::initializer_list<std::string_view> names;  // the commands it adds
  void (*add)(Commands&);
};

// In the order `t9ksim --help` lists them.
const Registrar kRegistrars[] = {
    {{"selfcheck"}, t9k::app::add_selfcheck_command},
    {{"validate"}, t9k::app::add_validate_command},
    {{"run"}, t9k::app::add_run_command},
    {{"report"}, t9k::app::add_report_command},
    {{"diff"}, t9k::app::add_diff_command},
    {{"compare"}, t9k::app::add_compare_command},
    {{"sweep"}, t9k::app::add_sweep_command},
    {{"size"}, t9k::app::add_size_command},
    {{"plugin"}, t9k::app::add_plugin_command},
    {{"import"}, t9k::app::add_import_command},
    {{"replay-check"}, t9k::app::add_replay_check_command},
    {{"forecast", "fit"}, t9k::app::add_forecast_commands},
    {{"test"}, t9k::app::add_test_command},
    {{"generate"}, t9k::app::add_generate_command},
    {{"plan", "shard", "merge"}, t9k::app::add_plan_commands},
};

// The registrar of the command argv[1] names, when only that one is needed: registering every
// command's options is a tenth of a small run's start-up (docs/performance.md). `plan` wraps
// another command, and help or an unknown name lists them all, so those register every command.
const Registrar* only_needed(int argc, char** argv) {
  if (argc < 2) return nullptr;
  const std::string_view name = argv[1];
  for (const auto& r : kRegistrars) {
    if (std::find(r.names.begin(), r.names.end(), name) == r.names.end()) continue;
    return r.add == t9k::app::add_plan_commands ? nullptr : &r;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  Commands commands(
      "t9ksim: a discrete-event simulator of the T9k job system "
      "(batch.tensorstack.dev/v1beta1)");
  if (const Registrar* r = only_needed(argc, argv)) {
    r->add(commands);
  } else {
    for (const auto& each : kRegistrars) each.add(commands);
  }
  return commands.run(argc, argv);
}
