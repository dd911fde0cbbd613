// Scenario overlays for `t9ksim compare` (docs/reports.md): a partial scenario merged onto a base.
//
// Merge rules (overlay onto base, recursively from the document root):
//  - map onto map: merged key by key; keys only in the base stay, keys only in the overlay are
//    appended, keys in both are merged by these rules; an overlay key whose value is null (`~`,
//    `null` or empty) removes the key;
//  - sequence onto sequence, when every element of both is a map with a scalar `name` (or
//    `metadata.name`, or `manifest.metadata.name`: queues and jobs wrapping a manifest): merged by
//    name; an element whose name is in the base is merged onto that element (in the base's
//    order), a new name is appended, and an overlay element `{name: X, $delete: true}` removes X;
//  - anything else (scalars, other sequences, a change of type): the overlay's value replaces the
//    base's.
// Quoting is kept, so "8" stays a string and 8 stays a number.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenarios/format/diagnostics.hpp"

namespace t9k::scenarios {

// Returns the merged scenario as YAML text. Problems (either text unparsable or not one mapping
// document, duplicate names in a named sequence, $delete of an unknown name) are appended to
// `errors`, named after `overlay_file` (or "<base scenario>"); the result is then empty.
// `plugins_dir`: when not empty, every plugin the overlay names (spec.plugins.controllers[],
// controllers.options.elasticPolicy.plugin) without a workingDir gets this one, so that its
// command resolves against the overlay's folder (given relative to the base's folder).
std::string merge_overlay(std::string_view base_yaml, std::string_view overlay_yaml,
                          const std::string& overlay_file, std::vector<Diagnostic>& errors,
                          const std::string& plugins_dir = "");

// `--set PATH=VALUE` (docs/scenario-format.md "Changing fields from the command line").
// PATH is relative to `spec` unless it starts with spec, metadata, apiVersion or kind; keys are
// separated by '.', a '.' inside a key is written `\.` (`nvidia\.com/gpu`); `[name=X]` selects the
// element of a list named X (by `name`, `metadata.name` or `manifest.metadata.name`), `[N]` the
// N-th. Missing mapping keys are created; a key under a `{manifest: ...}` entry that the entry
// lacks is looked up in its manifest. VALUE is YAML (56 a number, '"8"' a string, `{a: 1}` a
// map); an empty VALUE removes the field. The result loads like any scenario, so a bad value is
// reported with its field path by the loader.
inline constexpr std::size_t kMaxSetValueBytes = 65536;

// Diagnostics of a text that apply_sets or merge_overlay wrote: its line numbers are not those of
// any file the user has, so they are dropped (the field path says where). Returns `ds`.
std::vector<Diagnostic> without_positions(std::vector<Diagnostic> ds);

// A text a merged scenario was made from, by file name: an overlay, the base scenario.
struct SourceText {
  std::string file;
  std::string text;
};
// Diagnostics of a merged text pointed back at where the user wrote the value: for each diagnostic
// with a field path, the first of `sources` (overlay before base) that holds that path, with the
// same scalar where the merged text has a scalar, gives the file, line and column; lists merged by
// name are followed by name. A diagnostic no source holds (a value --set wrote, a key the merge
// removed) keeps its file and loses its position, as without_positions. Returns `ds`.
std::vector<Diagnostic> point_at_sources(std::vector<Diagnostic> ds, std::string_view merged_yaml,
                                         const std::vector<SourceText>& sources);

// Splits at the first '=' outside a selector; nullopt when there is none or the path is empty.
std::optional<std::pair<std::string, std::string>> split_assignment(std::string_view assignment);

// Applies the assignments in order to a scenario's YAML text and returns the new text. Problems
// (unparsable text, a path that selects nothing, a bad value) are appended to `errors`, each
// named "--set ASSIGNMENT" with the path reached; the result is then empty.
std::string apply_sets(std::string_view base_yaml, const std::vector<std::string>& assignments,
                       std::vector<Diagnostic>& errors);

}  // namespace t9k::scenarios
