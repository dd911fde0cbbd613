// A `--set` path (docs/scenario-format.md "--set"): keys split at unescaped dots, each with
// optional selectors, and the repair of a key with dots that the path split.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace t9k::scenarios::detail {

struct PathStep {
  std::string key;                   // empty for a step that is only a selector
  std::optional<std::string> name;   // [name=X]
  std::optional<std::size_t> index;  // [N]
  std::string shown;                 // as the user wrote it, for messages
};

std::optional<std::vector<PathStep>> parse_path(std::string_view path, std::string& error);

bool has_key(const YAML::Node& map, const std::string& key);

// `requests.nvidia.com/gpu` splits the key nvidia.com/gpu at its dots. When the map (or the
// manifest an entry wraps) has the key that steps k..j joined with dots make, those steps become
// one: unambiguous, since the key exists. Returns whether steps were merged.
bool merge_dotted_key(std::vector<PathStep>& steps, std::size_t k, const YAML::Node& map);

// A missing key in a map of qualified names (resources, labels, annotations) followed by a step
// with '/' is most likely such a name split at its dots (nvidia.com/gpu): the escape to write, or
// empty.
std::string dotted_name_hint(const std::vector<PathStep>& steps, std::size_t k);

}  // namespace t9k::scenarios::detail
