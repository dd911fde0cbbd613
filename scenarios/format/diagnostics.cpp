#include "scenarios/format/diagnostics.hpp"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

namespace t9k::scenarios {

namespace {

// Control characters from inputs (a file name, a --set text, a key) are written \xNN, so a
// message cannot move the terminal's cursor or hide its own text.
std::string escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string format_diagnostic(const Diagnostic& d) {
  std::string where = d.file.empty() ? std::string("<input>") : escaped(d.file);
  if (d.line > 0) where += fmt::format(":{}:{}", d.line, d.column);
  const char* sev = d.severity == Severity::Error     ? "error"
                    : d.severity == Severity::Warning ? "warning"
                                                      : "note";
  if (d.path.empty()) return fmt::format("{}: {}: {}", where, sev, escaped(d.message));
  return fmt::format("{}: {}: {}: {}", where, sev, escaped(d.path), escaped(d.message));
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
