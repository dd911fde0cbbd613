// Scenario overlays for `t9ksim compare` (docs/reports.md): a partial scenario merged onto a base.
//
// Merge rules (overlay onto base, recursively from the document root):
//  - map onto map: merged key by key; keys only in the base stay, keys only in the overlay are
//    appended, keys in both are merged by these rules; an overlay key whose value is null (`~`,
//    `null` or empty) removes the key;
//  - sequence onto sequence, when every element of both is a map with a scalar `name`: merged by
//    name; an element whose name is in the base is merged onto that element (in the base's
//    order), a new name is appended, and an overlay element `{name: X, $delete: true}` removes X;
//  - anything else (scalars, other sequences, a change of type): the overlay's value replaces the
//    base's.
// Quoting is kept, so "8" stays a string and 8 stays a number.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scenarios/format/diagnostics.hpp"

namespace t9k::scenarios {

// Returns the merged scenario as YAML text. Problems (either text unparsable or not one mapping
// document, duplicate names in a named sequence, $delete of an unknown name) are appended to
// `errors`, named after `overlay_file` (or "<base scenario>"); the result is then empty.
std::string merge_overlay(std::string_view base_yaml, std::string_view overlay_yaml,
                          const std::string& overlay_file, std::vector<Diagnostic>& errors);

}  // namespace t9k::scenarios
