#include "scenarios/format/diagnostics.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace t9k::scenarios {

std::string format_diagnostic(const Diagnostic& d) {
  std::string where = d.file.empty() ? std::string("<input>") : d.file;
  if (d.line > 0) where += fmt::format(":{}:{}", d.line, d.column);
  const char* sev = d.severity == Severity::Error ? "error" : "warning";
  if (d.path.empty()) return fmt::format("{}: {}: {}", where, sev, d.message);
  return fmt::format("{}: {}: {}: {}", where, sev, d.path, d.message);
}

bool has_errors(const std::vector<Diagnostic>& diagnostics) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

std::vector<Diagnostic> errors_only(const std::vector<Diagnostic>& diagnostics) {
  std::vector<Diagnostic> out;
  std::copy_if(diagnostics.begin(), diagnostics.end(), std::back_inserter(out),
               [](const Diagnostic& d) { return d.severity == Severity::Error; });
  return out;
}

}  // namespace t9k::scenarios
