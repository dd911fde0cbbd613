// t9ksim: the command line. Each command registers its options and what runs it beside its code
// (app/commands.hpp); exit codes: 0 success, 1 simulation or internal error, 2 bad usage or bad
// input (runs/exit_codes.hpp).
#include "app/commands.hpp"

int main(int argc, char** argv) {
  t9k::app::Commands commands(
      "t9ksim: a discrete-event simulator of the T9k job system "
      "(batch.tensorstack.dev/v1beta1)");
  t9k::app::add_selfcheck_command(commands);
  t9k::app::add_validate_command(commands);
  t9k::app::add_run_command(commands);
  t9k::app::add_report_command(commands);
  t9k::app::add_diff_command(commands);
  t9k::app::add_compare_command(commands);
  t9k::app::add_sweep_command(commands);
  t9k::app::add_size_command(commands);
  t9k::app::add_plugin_command(commands);
  t9k::app::add_import_command(commands);
  t9k::app::add_replay_check_command(commands);
  t9k::app::add_forecast_commands(commands);
  t9k::app::add_test_command(commands);
  t9k::app::add_generate_command(commands);
  t9k::app::add_plan_commands(commands);
  return commands.run(argc, argv);
}
