// What several commands share in how they talk to the user: diagnostics printed one per line, and
// a command body whose exceptions become one error line and the exit code.
#pragma once

#include <cstdio>
#include <exception>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "analysis/result_folder.hpp"
#include "runs/exit_codes.hpp"
#include "scenarios/format/diagnostics.hpp"

namespace t9k::runs {

// Errors on stderr; warnings and notes on stdout, or not at all when `quiet`.
inline void print_diagnostics(const std::vector<scenarios::Diagnostic>& diags, bool quiet = false) {
  for (const auto& d : diags) {
    if (d.severity == scenarios::Severity::Error)
      fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
    else if (!quiet)
      fmt::print("{}\n", scenarios::format_diagnostic(d));
  }
}

// A scenario that does not load: every diagnostic on stderr, the warnings with the errors.
inline void print_to_stderr(const std::vector<scenarios::Diagnostic>& diags) {
  for (const auto& d : diags) fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
}

// Runs a command's body and returns its exit code; an exception is printed as
// "t9ksim COMMAND: error: WHAT" and exits with kExitUsage for the `UsageErrors` types and for an
// OutputError that blames the user's input, kExitError otherwise.
template <class... UsageErrors, class Body>
int guarded(std::string_view command, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim {}: error: {}\n", command, e.what());
    if ((... || (dynamic_cast<const UsageErrors*>(&e) != nullptr))) return kExitUsage;
    if (const auto* o = dynamic_cast<const analysis::OutputError*>(&e))
      return o->usage() ? kExitUsage : kExitError;
    return kExitError;
  }
}

}  // namespace t9k::runs
