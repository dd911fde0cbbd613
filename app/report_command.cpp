#include "app/report_command.hpp"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "app/commands.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

int report_command(const std::string& dir) {
  if (!std::filesystem::is_directory(dir)) {
    fmt::print(stderr, "t9ksim: error: {}: no such directory\n", dir);
    return 2;
  }
  try {
    // One writer at a time; a folder whose files are not those its run listed is still reported
    // on, with a warning, since reading it is how a user finds out what is wrong.
    const analysis::FolderLock lock(analysis::listing_owner(dir));
    if (const auto problem = analysis::folder_problem(dir, {"report.html"}, true);
        !problem.empty()) {
      fmt::print(stderr, "t9ksim: warning: {}\n", problem);
    }
    const auto out = analysis::write_report(dir);
    analysis::relist_file(out);
    fmt::print("{}\n", out.string());
    std::fflush(stdout);
    return 0;
  } catch (const analysis::OutputError& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return e.usage() ? 2 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return 1;
  }
}

void add_report_command(Commands& c) {
  auto dir = std::make_shared<std::string>();
  auto* report = c.add("report", "Regenerate report.html from a results directory");
  report->add_option("DIR", *dir, "Results of t9ksim run or t9ksim compare")->required();
  c.on(report, [dir] { return report_command(*dir); });
}

}  // namespace t9k::app
