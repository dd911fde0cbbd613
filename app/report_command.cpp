#include "app/report_command.hpp"

#include <cstdio>
#include <exception>
#include <filesystem>

#include <fmt/format.h>

#include "analysis/report.hpp"

namespace t9k::app {

int report_command(const std::string& dir) {
  if (!std::filesystem::is_directory(dir)) {
    fmt::print(stderr, "t9ksim: error: {}: no such directory\n", dir);
    return 2;
  }
  try {
    const auto out = analysis::write_report(dir);
    fmt::print("{}\n", out.string());
    std::fflush(stdout);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return 1;
  }
}

}  // namespace t9k::app
