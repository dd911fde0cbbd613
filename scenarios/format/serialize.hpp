// Objects back to Kubernetes-style JSON (camelCase field names, spec and status), such that
// parse_manifests(to_json(x)) yields x again. Timestamps are RFC 3339 with microseconds, with
// simulation time zero at 1970-01-01T00:00:00Z.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scenarios/format/manifests.hpp"

namespace t9k::scenarios {

// One object as a JSON document (two-space indentation, fields in API order).
std::string to_json(const Object& object);

// The same on one line, without indentation (the plugin protocol's framing, docs/plugins.md).
std::string to_compact_json(const Object& object);
// A job status alone, on one line, as it appears under "status" in to_json.
std::string to_compact_json(const model::JobStatus& status);

// Several objects as a YAML stream of JSON documents separated by "---".
std::string to_json_stream(const std::vector<Object>& objects);

// A YAML double-quoted scalar (quotes and backslashes escaped), for scenario text the commands
// write (import, replay-check).
std::string yaml_quoted(std::string_view s);

// RFC 3339 text for a simulation instant ("1970-01-01T00:00:05.000250Z") and back. parse returns
// false for malformed text or a time before time zero.
std::string format_timestamp(model::SimTime t);
bool parse_timestamp(std::string_view text, model::SimTime& out);
// Go's zero time.Time, "0001-01-01T00:00:00Z": how Go programs (kubectl exports, controllers)
// write a time that was never set. Readers treat it as absent.
bool is_unset_time(std::string_view text);

}  // namespace t9k::scenarios
