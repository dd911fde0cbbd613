// Load and validation findings. Every finding names the file, the field path
// ("spec.replicaSpecs[1].restartPolicy.policy"), what was found and what is allowed.
#pragma once

#include <string>
#include <vector>

namespace t9k::scenarios {

// Note: what loading assumed or chose (time zero, a default taken from the data); a warning says
// what may make the results misleading.
enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;
  int line = 0;      // 1-based; 0 when unknown (objects built in code)
  int column = 0;    // 1-based; 0 when unknown
  int document = 0;  // 0-based index of the YAML document inside the file
  std::string path;  // field path from the document root; empty for the whole document
  std::string message;
  bool operator==(const Diagnostic&) const = default;
};

// "jobs.yaml:12:7: error: spec.replicaSpecs[1].restartPolicy.policy: found ..."
std::string format_diagnostic(const Diagnostic& d);

bool has_errors(const std::vector<Diagnostic>& diagnostics);
std::vector<Diagnostic> errors_only(const std::vector<Diagnostic>& diagnostics);

}  // namespace t9k::scenarios
