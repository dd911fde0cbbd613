#include "app/commands.hpp"

#include <cstdio>
#include <exception>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/result_folder.hpp"
#include "app/cli_numbers.hpp"
#include "runs/exit_codes.hpp"
#include "runs/version.hpp"

namespace t9k::app {

using runs::kExitError;
using runs::kExitOk;
using runs::kExitUsage;

Commands::Commands(const std::string& description) : app_(description) {
  app_.set_version_flag("--version", std::string("t9ksim ") + T9KSIM_VERSION);
  app_.require_subcommand(0, 1);
}

CLI::App* Commands::add(const std::string& name, const std::string& description) {
  return app_.add_subcommand(name, description);
}

void Commands::on(CLI::App* command, std::function<int()> run) {
  commands_.emplace_back(command, std::move(run));
}

int Commands::run(int argc, char** argv) {
  std::vector<std::string> plan_args;
  std::vector<char*> plan_argv;
  if (argc > 1 && std::string_view(argv[1]) == "plan") {
    plan_.emplace();
    auto parsed = plan_arguments(argc, argv, *plan_);
    if (const int* rc = std::get_if<int>(&parsed)) return *rc;
    plan_args = std::get<std::vector<std::string>>(std::move(parsed));
    for (auto& a : plan_args) plan_argv.push_back(a.data());
    plan_argv.push_back(nullptr);
    argc = static_cast<int>(plan_args.size());
    argv = plan_argv.data();
  }
  // An unknown command is an error even when --help follows it (CLI11 would print the main help
  // and exit 0, so `t9ksim tset --help` would look like success).
  if (argc > 1 && argv[1][0] != '-') {
    try {
      (void)app_.get_subcommand(argv[1]);
    } catch (const CLI::OptionNotFound&) {
      std::vector<std::string> names;
      for (const auto* sub : app_.get_subcommands([](CLI::App*) { return true; }))
        names.push_back(sub->get_name());
      fmt::print(stderr, "t9ksim: error: unknown command '{}'; the commands are {}\n",
                 printable(argv[1]), fmt::join(names, ", "));
      return kExitUsage;
    }
  }
  try {
    app_.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app_.exit(e);
  } catch (const CLI::ParseError& e) {
    app_.exit(e);
    return kExitUsage;
  }
  try {
    for (const auto& [sub, run] : commands_) {
      if (*sub) return run();
    }
    fmt::print("{}", app_.help());
    return kExitOk;
  } catch (const analysis::OutputError& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return e.usage() ? kExitUsage : kExitError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return kExitError;
  }
}

}  // namespace t9k::app
