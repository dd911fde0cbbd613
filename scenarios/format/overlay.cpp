#include "scenarios/format/overlay.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace t9k::scenarios {

namespace {

constexpr const char* kBaseFile = "<base scenario>";
constexpr const char* kDeleteKey = "$delete";

class Merger {
 public:
  Merger(std::string overlay_file, std::vector<Diagnostic>& errors)
      : file_(std::move(overlay_file)), errors_(errors) {}

  YAML::Node merge(const YAML::Node& base, const YAML::Node& over, const std::string& path) {
    if (base.IsMap() && over.IsMap()) return merge_maps(base, over, path);
    if (base.IsSequence() && over.IsSequence() && all_named(base) && all_named(over)) {
      return merge_named(base, over, path);
    }
    return YAML::Clone(over);
  }

 private:
  void error(const YAML::Node& at, const std::string& path, std::string message) {
    Diagnostic d;
    d.file = file_;
    if (!at.Mark().is_null()) {
      d.line = at.Mark().line + 1;
      d.column = at.Mark().column + 1;
    }
    d.path = path;
    d.message = std::move(message);
    errors_.push_back(std::move(d));
  }

  static std::string child(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  static std::optional<std::string> name_of(const YAML::Node& item) {
    if (!item.IsMap()) return std::nullopt;
    const YAML::Node n = item["name"];
    if (!n || !n.IsScalar()) return std::nullopt;
    return n.Scalar();
  }

  static bool all_named(const YAML::Node& seq) {
    for (const auto& item : seq) {
      if (!name_of(item)) return false;
    }
    return true;
  }

  static bool is_delete_marker(const YAML::Node& item) {
    const YAML::Node d = item[kDeleteKey];
    return d && d.IsScalar() && d.Scalar() == "true";
  }

  YAML::Node merge_maps(const YAML::Node& base, const YAML::Node& over, const std::string& path) {
    // Keys compare by their scalar text; a non-scalar key (legal YAML, never in a scenario)
    // cannot be addressed and is copied through.
    std::map<std::string, YAML::Node> over_by_key;
    std::vector<std::string> over_order;
    for (const auto& kv : over) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : YAML::Dump(kv.first);
      if (over_by_key.count(key)) {
        error(kv.first, child(path, key), "key appears twice in the overlay");
        continue;
      }
      over_by_key.emplace(key, kv.second);
      over_order.push_back(key);
    }
    YAML::Node out(YAML::NodeType::Map);
    std::set<std::string> seen;
    for (const auto& kv : base) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : YAML::Dump(kv.first);
      seen.insert(key);
      const auto it = over_by_key.find(key);
      if (it == over_by_key.end()) {
        out[YAML::Clone(kv.first)] = YAML::Clone(kv.second);
      } else if (!it->second.IsNull()) {
        out[YAML::Clone(kv.first)] = merge(kv.second, it->second, child(path, key));
      }
    }
    for (const auto& key : over_order) {
      if (seen.count(key)) continue;
      const YAML::Node& v = over_by_key.at(key);
      if (v.IsNull()) continue;  // removing a key the base does not have: nothing to do
      out[key] = YAML::Clone(v);
    }
    return out;
  }

  YAML::Node merge_named(const YAML::Node& base, const YAML::Node& over, const std::string& path) {
    std::map<std::string, YAML::Node> over_by_name;
    std::vector<std::string> over_order;
    std::size_t i = 0;
    for (const auto& item : over) {
      const std::string name = *name_of(item);
      const std::string item_path = fmt::format("{}[{}]", path, i++);
      if (over_by_name.count(name)) {
        error(item, item_path, fmt::format("name \"{}\" appears twice in the overlay", name));
        continue;
      }
      over_by_name.emplace(name, item);
      over_order.push_back(name);
    }
    YAML::Node out(YAML::NodeType::Sequence);
    std::set<std::string> seen;
    i = 0;
    for (const auto& item : base) {
      const std::string name = *name_of(item);
      const std::string item_path = fmt::format("{}[{}]", path, i++);
      if (!seen.insert(name).second) {
        error(item, item_path, fmt::format("name \"{}\" appears twice in the base scenario", name));
      }
      const auto it = over_by_name.find(name);
      if (it == over_by_name.end()) {
        out.push_back(YAML::Clone(item));
      } else if (!is_delete_marker(it->second)) {
        out.push_back(merge(item, it->second, item_path));
      }
    }
    for (const auto& name : over_order) {
      const YAML::Node& item = over_by_name.at(name);
      if (seen.count(name)) continue;
      if (is_delete_marker(item)) {
        error(item, path, fmt::format("{}: no element named \"{}\" in the base scenario", kDeleteKey, name));
        continue;
      }
      out.push_back(YAML::Clone(item));
    }
    return out;
  }

  std::string file_;
  std::vector<Diagnostic>& errors_;
};

// Emits a tree keeping each scalar's quoting: the scenario reader treats a quoted "8" as a
// string and a plain 8 as a number, so a round trip must not change which one it is.
void emit(YAML::Emitter& out, const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out << YAML::Null;
      break;
    case YAML::NodeType::Scalar:
      if (n.Tag() == "!") {
        out << YAML::DoubleQuoted << n.Scalar();
      } else if (n.Tag() == "?" || n.Tag().empty()) {
        out << n.Scalar();
      } else {
        out << YAML::VerbatimTag(n.Tag()) << n.Scalar();
      }
      break;
    case YAML::NodeType::Sequence:
      if (n.size() == 0) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        break;
      }
      out << YAML::BeginSeq;
      for (const auto& item : n) emit(out, item);
      out << YAML::EndSeq;
      break;
    case YAML::NodeType::Map:
      if (n.size() == 0) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        break;
      }
      out << YAML::BeginMap;
      for (const auto& kv : n) {
        out << YAML::Key;
        emit(out, kv.first);
        out << YAML::Value;
        emit(out, kv.second);
      }
      out << YAML::EndMap;
      break;
  }
}

std::optional<YAML::Node> load_one(std::string_view text, const std::string& file, std::vector<Diagnostic>& errors) {
  try {
    std::vector<YAML::Node> docs = YAML::LoadAll(std::string(text));
    if (docs.size() != 1 || !docs[0].IsMap()) {
      Diagnostic d;
      d.file = file;
      d.message = fmt::format("found {} document(s){}; allowed: one mapping document", docs.size(),
                              docs.size() == 1 ? " that is not a mapping" : "");
      errors.push_back(std::move(d));
      return std::nullopt;
    }
    return docs[0];
  } catch (const YAML::Exception& e) {
    Diagnostic d;
    d.file = file;
    if (!e.mark.is_null()) {
      d.line = e.mark.line + 1;
      d.column = e.mark.column + 1;
    }
    d.message = e.msg;
    errors.push_back(std::move(d));
    return std::nullopt;
  }
}

}  // namespace

std::string merge_overlay(std::string_view base_yaml, std::string_view overlay_yaml, const std::string& overlay_file,
                          std::vector<Diagnostic>& errors) {
  const std::size_t before = errors.size();
  const auto base = load_one(base_yaml, kBaseFile, errors);
  const auto over = load_one(overlay_yaml, overlay_file, errors);
  if (!base || !over) return {};
  Merger m(overlay_file, errors);
  const YAML::Node merged = m.merge(*base, *over, "");
  if (errors.size() != before) return {};
  YAML::Emitter out;
  emit(out, merged);
  if (!out.good()) {
    Diagnostic d;
    d.file = overlay_file;
    d.message = "cannot write the merged scenario: " + out.GetLastError();
    errors.push_back(std::move(d));
    return {};
  }
  return std::string(out.c_str()) + "\n";
}

}  // namespace t9k::scenarios
