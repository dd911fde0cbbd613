// `t9ksim diff A B`: whether two results folders hold the same results, leaving aside only what
// analysis/folder_diff.hpp declares may differ (plugin logs and what crossed to plugins).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/folder_diff.hpp"
#include "app/commands.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

namespace {

struct DiffArgs {
  std::string a, b;
  std::vector<std::string> ignore;
  bool quiet = false;
};

int diff_command(const DiffArgs& args) {
  analysis::FolderDiff d;
  try {
    d = analysis::diff_folders(args.a, args.b, args.ignore);
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim diff: {}\n", e.what());
    return 2;
  }
  if (d.same()) {
    if (!args.quiet) {
      fmt::print("identical: {} files compared, {} left aside as declared ({})\n", d.compared,
                 d.ignored, "t9ksim diff --help lists what");
    }
    return 0;
  }
  for (const auto& x : d.differences) {
    if (x.a.empty() && x.b.empty()) {
      fmt::print("{}: {}\n", x.file, x.where);
    } else {
      fmt::print("{}: {}\n  A: {}\n  B: {}\n", x.file, x.where, x.a, x.b);
    }
  }
  fmt::print("{} of {} files differ\n", d.differences.size(),
             d.compared + static_cast<std::size_t>(std::count_if(
                              d.differences.begin(), d.differences.end(),
                              [](const auto& x) { return x.where.starts_with("only in"); })));
  return 1;
}

}  // namespace

void add_diff_command(Commands& c) {
  auto args = std::make_shared<DiffArgs>();
  std::string declared;
  for (const auto& p : analysis::ignored_parts())
    declared += fmt::format("\n  {}: {}", p.where, p.why);
  auto* diff =
      c.add("diff",
            "Compare two results folders: exit 0 when they hold the same results, 1 with the first "
            "difference of each file that differs. Left aside, as declared (docs/outputs.md):" +
                declared);
  diff->add_option("A", args->a, "A results folder")->required();
  diff->add_option("B", args->b, "Another results folder")->required();
  diff->add_option("--ignore", args->ignore,
                   "A further file (or folder, ending in /) to leave aside, relative to each "
                   "folder; repeatable");
  diff->add_flag("-q,--quiet", args->quiet, "Print nothing when they are the same");
  c.on(diff, [args] { return diff_command(*args); });
}

}  // namespace t9k::app
