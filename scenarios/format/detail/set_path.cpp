#include "scenarios/format/detail/set_path.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace t9k::scenarios::detail {

std::optional<std::vector<PathStep>> parse_path(std::string_view path, std::string& error) {
  std::vector<PathStep> steps;
  PathStep cur;
  std::size_t i = 0;
  auto flush = [&] {
    if (cur.key.empty() && !cur.name && !cur.index) {
      error = "empty key in the path";
      return false;
    }
    steps.push_back(std::move(cur));
    cur = PathStep{};
    return true;
  };
  while (i < path.size()) {
    const char c = path[i];
    if (c == '\\' && i + 1 < path.size() &&
        (path[i + 1] == '.' || path[i + 1] == '[' || path[i + 1] == '\\')) {
      cur.key += path[i + 1];
      cur.shown += path.substr(i, 2);
      i += 2;
    } else if (c == '.') {
      if (!flush()) return std::nullopt;
      ++i;
    } else if (c == '[') {
      const auto close = path.find(']', i);
      if (close == std::string_view::npos) {
        error = "'[' without a closing ']'";
        return std::nullopt;
      }
      if (!cur.key.empty() || cur.name || cur.index) {
        if (cur.name || cur.index) {  // a[0][1]: a new step for each further selector
          steps.push_back(cur);
          cur = PathStep{};
        }
      }
      const std::string_view sel = path.substr(i + 1, close - i - 1);
      cur.shown += path.substr(i, close - i + 1);
      if (sel.starts_with("name=") && sel.size() > 5) {
        cur.name = std::string(sel.substr(5));
      } else if (!sel.empty() &&
                 std::all_of(sel.begin(), sel.end(), [](char d) { return d >= '0' && d <= '9'; }) &&
                 sel.size() < 10) {
        cur.index = static_cast<std::size_t>(std::stoul(std::string(sel)));
      } else {
        error = fmt::format("selector [{}]: expected [name=NAME] or [INDEX]", sel);
        return std::nullopt;
      }
      i = close + 1;
      if (i < path.size() && path[i] != '.' && path[i] != '[') {
        error = fmt::format("'{}' after [{}]: expected '.' or '['", path[i], sel);
        return std::nullopt;
      }
    } else {
      cur.key += c;
      cur.shown += c;
      ++i;
    }
  }
  if (!flush()) return std::nullopt;
  return steps;
}

bool has_key(const YAML::Node& map, const std::string& key) {
  for (const auto& kv : map) {
    if (kv.first.IsScalar() && kv.first.Scalar() == key) return true;
  }
  return false;
}

bool merge_dotted_key(std::vector<PathStep>& steps, std::size_t k, const YAML::Node& map) {
  const auto holds = [&](const std::string& key) {
    return has_key(map, key) ||
           (has_key(map, "manifest") && map["manifest"].IsMap() && has_key(map["manifest"], key));
  };
  if (steps[k].name || steps[k].index || holds(steps[k].key)) return false;
  std::string joined = steps[k].key, shown = steps[k].shown;
  for (std::size_t j = k + 1; j < steps.size() && !steps[j].key.empty(); ++j) {
    joined += "." + steps[j].key;
    shown += "." + steps[j].shown;
    if (holds(joined)) {
      PathStep merged = steps[j];
      merged.key = joined;
      merged.shown = shown;
      steps.erase(steps.begin() + static_cast<std::ptrdiff_t>(k),
                  steps.begin() + static_cast<std::ptrdiff_t>(j) + 1);
      steps.insert(steps.begin() + static_cast<std::ptrdiff_t>(k), std::move(merged));
      return true;
    }
    if (steps[j].name || steps[j].index) break;
  }
  return false;
}

std::string dotted_name_hint(const std::vector<PathStep>& steps, std::size_t k) {
  static const std::set<std::string> kNameMaps = {
      "labels", "annotations", "requests", "limits",      "extraResources",
      "quota",  "matchLabels", "capacity", "allocatable", "nodeSelector"};
  if (k == 0 || !kNameMaps.count(steps[k - 1].key)) return {};
  std::string escaped = steps[k].key, plain = steps[k].key;
  for (std::size_t j = k + 1; j < steps.size() && !steps[j].key.empty(); ++j) {
    escaped += "\\." + steps[j].key;
    plain += "." + steps[j].key;
    if (steps[j].key.find('/') != std::string::npos) {
      return fmt::format("; if the key is {}, write its dots as \\. ({})", plain, escaped);
    }
    if (steps[j].name || steps[j].index) break;
  }
  return {};
}

}  // namespace t9k::scenarios::detail
