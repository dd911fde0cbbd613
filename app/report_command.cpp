#include "app/report_command.hpp"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "analysis/folder_commit.hpp"
#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "app/commands.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

int report_command(const std::string& dir) {
  namespace fs = std::filesystem;
  try {
    std::error_code ec;
    const fs::path folder = analysis::normal_folder_path(dir);
    // A folder a killed commit left set aside is still found: the lock's owner restores it.
    if (!fs::is_directory(folder, ec) && !fs::exists(analysis::aside_path(folder), ec)) {
      fmt::print(stderr, "t9ksim: error: {}: no such directory\n", dir);
      return 2;
    }
    // One writer at a time, the same lock and the same recovery as every other writer; a folder
    // whose files are not those its run listed is still reported on, with a warning, since
    // reading it is how a user finds out what is wrong.
    const fs::path owner = analysis::listing_owner(folder);
    const analysis::FolderLock lock(owner);
    analysis::recover_interrupted(owner);
    if (!fs::is_directory(folder, ec)) {
      fmt::print(stderr, "t9ksim: error: {}: no such directory\n", dir);
      return 2;
    }
    if (const auto problem = analysis::folder_problem(folder, {"report.html"}, true);
        !problem.empty()) {
      fmt::print(stderr, "t9ksim: warning: {}\n", problem);
    }
    const fs::path out = fs::path(dir) / "report.html";
    analysis::replace_listed_file(folder / "report.html", analysis::render_folder_report(folder));
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
