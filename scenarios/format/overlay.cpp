#include "scenarios/format/overlay.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "scenarios/format/detail/decode.hpp"
#include "scenarios/format/detail/set_path.hpp"

namespace t9k::scenarios {

using detail::dotted_name_hint;
using detail::has_key;
using detail::merge_dotted_key;
using detail::parse_path;
using detail::PathStep;

namespace {

constexpr const char* kBaseFile = "<base scenario>";
constexpr const char* kDeleteKey = "$delete";

// An element's name in a named list: `as` (a job entry submitting a manifest under that name),
// else `name`, else `metadata.name` (a manifest), else `manifest.metadata.name` (a queue or job
// entry wrapping a manifest).
std::optional<std::string> item_name(const YAML::Node& item) {
  if (!item.IsMap()) return std::nullopt;
  if (const YAML::Node n = item["as"]; n && n.IsScalar()) return n.Scalar();
  if (const YAML::Node n = item["name"]; n && n.IsScalar()) return n.Scalar();
  const auto name_in = [](const YAML::Node& meta) -> std::optional<std::string> {
    if (!meta || !meta.IsMap()) return std::nullopt;
    const YAML::Node n = meta["name"];
    if (!n || !n.IsScalar()) return std::nullopt;
    return n.Scalar();
  };
  if (const YAML::Node meta = item["metadata"]) return name_in(meta);
  const YAML::Node manifest = item["manifest"];
  if (manifest && manifest.IsMap()) return name_in(manifest["metadata"]);
  return std::nullopt;
}

// How a named list's elements are matched: by name, and by namespace too when an element's
// manifest has one (jobs of one name in two namespaces are two jobs, as the loader counts them).
std::string item_key(const YAML::Node& item) {
  std::string key = *item_name(item);
  const auto namespace_in = [&](const YAML::Node& meta) {
    if (!meta || !meta.IsMap()) return;
    if (const YAML::Node ns = meta["namespace"]; ns && ns.IsScalar() && !ns.Scalar().empty())
      key = ns.Scalar() + "/" + key;
  };
  if (const YAML::Node meta = item["metadata"]) {
    namespace_in(meta);
  } else if (const YAML::Node manifest = item["manifest"]; manifest && manifest.IsMap()) {
    namespace_in(manifest["metadata"]);
  }
  return key;
}

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
  // `in_base`: the node is the base scenario's, so the place is in the base's file.
  void error(const YAML::Node& at, const std::string& path, std::string message,
             bool in_base = false) {
    Diagnostic d;
    d.file = in_base ? kBaseFile : file_;
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

  static std::optional<std::string> name_of(const YAML::Node& item) { return item_name(item); }

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
      const std::string name = item_key(item);
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
      const std::string name = item_key(item);
      const std::string item_path = fmt::format("{}[{}]", path, i++);
      if (!seen.insert(name).second) {
        error(item, item_path, fmt::format("name \"{}\" appears twice in the base scenario", name),
              true);
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
        error(item, path,
              fmt::format("{}: no element named \"{}\" in the base scenario", kDeleteKey, name));
        continue;
      }
      out.push_back(YAML::Clone(item));
    }
    return out;
  }

  std::string file_;
  std::vector<Diagnostic>& errors_;
};

// The tree as it expands (aliases counted each time they are reached) stays within a budget of
// nodes and a depth: an alias bomb or a cyclic alias (`&a [*a]`) would otherwise make the merge
// or the emitter run without end. The budget is the loader's (docs/scenario-format.md
// "Hardening"): 200,000 nodes plus 2 per byte of the text. Walks with an explicit stack.
constexpr int kMaxDepth = 256;

bool within_budget(const YAML::Node& root, std::size_t text_bytes) {
  std::size_t budget = 200000 + 2 * text_bytes;
  std::vector<std::pair<YAML::Node, int>> stack;
  stack.emplace_back(root, 0);
  while (!stack.empty()) {
    auto [n, depth] = stack.back();
    stack.pop_back();
    if (budget-- == 0 || depth > kMaxDepth) return false;
    if (n.IsSequence()) {
      for (const auto& item : n) stack.emplace_back(item, depth + 1);
    } else if (n.IsMap()) {
      for (const auto& kv : n) {
        stack.emplace_back(kv.first, depth + 1);
        stack.emplace_back(kv.second, depth + 1);
      }
    }
  }
  return true;
}

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

std::optional<YAML::Node> load_one(std::string_view text, const std::string& file,
                                   std::vector<Diagnostic>& errors) {
  try {
    // The loader's reader: its guard against yaml-cpp never finishing on a stray ','.
    const auto parsed = detail::parse_yaml(text, file, errors);
    if (!parsed) return std::nullopt;
    std::vector<YAML::Node> docs;
    for (const auto& d : *parsed) docs.push_back(d.node);
    if (docs.size() != 1 || !docs[0].IsMap()) {
      Diagnostic d;
      d.file = file;
      d.message = fmt::format("found {} document(s){}; allowed: one mapping document", docs.size(),
                              docs.size() == 1 ? " that is not a mapping" : "");
      errors.push_back(std::move(d));
      return std::nullopt;
    }
    if (!within_budget(docs[0], text.size())) {
      Diagnostic d;
      d.file = file;
      d.message = fmt::format(
          "the document expands to more than {} values or nests deeper than {} levels "
          "(aliases?); refused",
          200000 + 2 * text.size(), kMaxDepth);
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

// A `--set` value: one small YAML node, without anchors or aliases (they could expand without
// bound).
std::optional<YAML::Node> load_value(const std::string& text, const std::string& file,
                                     std::vector<Diagnostic>& errors) {
  auto error = [&](std::string message) {
    Diagnostic d;
    d.file = file;
    d.message = std::move(message);
    errors.push_back(std::move(d));
    return std::nullopt;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool token_start =
        i == 0 || std::string_view(" \t[{,:").find(text[i - 1]) != std::string_view::npos;
    if ((c == '&' || c == '*') && token_start)
      return error("anchors and aliases are not accepted in a --set value");
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
      return error("control characters are not accepted in a --set value");
  }
  try {
    std::vector<Diagnostic> parse_errors;
    const auto parsed = detail::parse_yaml(text, file, parse_errors);
    if (!parsed)
      return error("the value is not YAML: " +
                   (parse_errors.empty() ? std::string() : parse_errors.front().message));
    std::vector<YAML::Node> docs;
    for (const auto& d : *parsed) docs.push_back(d.node);
    if (docs.size() != 1)
      return error(fmt::format("the value is {} YAML documents; expected one", docs.size()));
    if (!within_budget(docs[0], text.size())) return error("the value expands too far (aliases?)");
    return docs[0];
  } catch (const YAML::Exception& e) {
    return error("the value is not YAML: " + e.msg);
  }
}

std::string names_in(const YAML::Node& seq) {
  std::vector<std::string> names;
  for (const auto& item : seq) {
    if (auto n = item_name(item)) names.push_back(*n);
  }
  return names.empty() ? "none has a name" : fmt::format("names: {}", fmt::join(names, ", "));
}

}  // namespace

std::vector<Diagnostic> without_positions(std::vector<Diagnostic> ds) {
  for (auto& d : ds) {
    d.line = 0;
    d.column = 0;
  }
  return ds;
}

namespace {

// A diagnostic's field path as keys and indices: "spec.jobs[0].manifest" -> spec, jobs, [0],
// manifest. Keys may hold dots (nvidia.com/gpu); they are rejoined while walking.
struct PathToken {
  std::string key;
  std::optional<std::size_t> index;
};

std::vector<PathToken> path_tokens(const std::string& path) {
  std::vector<PathToken> out;
  std::string cur;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.') {
      if (!cur.empty()) out.push_back({std::move(cur), std::nullopt});
      cur.clear();
    } else if (c == '[') {
      const auto close = path.find(']', i);
      if (close == std::string::npos) return {};
      if (!cur.empty()) out.push_back({std::move(cur), std::nullopt});
      cur.clear();
      try {
        out.push_back(
            {"", static_cast<std::size_t>(std::stoull(path.substr(i + 1, close - i - 1)))});
      } catch (const std::exception&) {
        return {};
      }
      i = close;
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back({std::move(cur), std::nullopt});
  return out;
}

// Lookups through a const node: yaml-cpp's non-const operator[] inserts the key it is asked for.
YAML::Node child_of(const YAML::Node& n, const std::string& key) { return n[key]; }
YAML::Node child_of(const YAML::Node& n, std::size_t index) { return n[index]; }

// The node of `source` at the position `path` reaches in `merged`, walking both together.
std::optional<YAML::Mark> locate(YAML::Node merged, YAML::Node source,
                                 const std::vector<PathToken>& path) {
  for (std::size_t i = 0; i < path.size();) {
    if (path[i].index) {
      if (!merged.IsSequence() || !source.IsSequence() || *path[i].index >= merged.size())
        return std::nullopt;
      const YAML::Node m = child_of(merged, *path[i].index);
      YAML::Node found;
      if (const auto name = item_name(m)) {
        for (const auto& s : source) {
          if (item_name(s) == name) found.reset(s);
        }
      } else if (source.size() == merged.size()) {
        found.reset(child_of(source, *path[i].index));
      }
      if (!found) return std::nullopt;
      // reset() rebinds; operator= would write into the tree.
      merged.reset(m);
      source.reset(found);
      ++i;
      continue;
    }
    if (!merged.IsMap() || !source.IsMap()) return std::nullopt;
    // The longest run of dot-separated tokens that is a key of the merged map.
    bool moved = false;
    std::string key;
    for (std::size_t j = i; j < path.size() && !path[j].index; ++j) {
      key += (j > i ? "." : "") + path[j].key;
      const YAML::Node m = child_of(merged, key);
      if (!m) continue;
      const YAML::Node s = child_of(source, key);
      if (!s) return std::nullopt;
      merged.reset(m);
      source.reset(s);
      i = j + 1;
      moved = true;
      break;
    }
    if (!moved) return std::nullopt;
  }
  if (merged.IsScalar() && (!source.IsScalar() || source.Scalar() != merged.Scalar()))
    return std::nullopt;
  return source.Mark();
}

}  // namespace

std::vector<Diagnostic> point_at_sources(std::vector<Diagnostic> ds, std::string_view merged_yaml,
                                         const std::vector<SourceText>& sources) {
  std::vector<Diagnostic> ignored;
  const auto merged = load_one(merged_yaml, "", ignored);
  std::vector<std::optional<YAML::Node>> roots;
  for (const auto& s : sources) roots.push_back(load_one(s.text, s.file, ignored));
  for (auto& d : ds) {
    d.line = 0;
    d.column = 0;
    if (!merged || d.path.empty()) continue;
    const auto tokens = path_tokens(d.path);
    if (tokens.empty()) continue;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      if (!roots[i]) continue;
      if (const auto mark = locate(*merged, *roots[i], tokens); mark && !mark->is_null()) {
        d.file = sources[i].file;
        d.line = mark->line + 1;
        d.column = mark->column + 1;
        break;
      }
    }
  }
  return ds;
}

std::optional<std::pair<std::string, std::string>> split_assignment(std::string_view assignment) {
  // The first '=' outside a selector separates path and value.
  int depth = 0;
  for (std::size_t i = 0; i < assignment.size(); ++i) {
    const char c = assignment[i];
    if (c == '\\') {
      ++i;
    } else if (c == '[') {
      ++depth;
    } else if (c == ']') {
      depth = std::max(0, depth - 1);
    } else if (c == '=' && depth == 0) {
      if (i == 0) return std::nullopt;
      return std::make_pair(std::string(assignment.substr(0, i)),
                            std::string(assignment.substr(i + 1)));
    }
  }
  return std::nullopt;
}

std::string apply_sets(std::string_view base_yaml, const std::vector<std::string>& assignments,
                       std::vector<Diagnostic>& errors) {
  const std::size_t before = errors.size();
  auto fail = [&](const std::string& assignment, const std::string& path, std::string message) {
    Diagnostic d;
    d.file = "--set " + assignment;
    d.path = path;
    d.message = std::move(message);
    errors.push_back(std::move(d));
  };
  auto root = load_one(base_yaml, kBaseFile, errors);
  if (!root) return {};
  for (const auto& assignment : assignments) {
    const auto pv = split_assignment(assignment);
    if (!pv) {
      fail(assignment, "", "expected PATH=VALUE, e.g. cluster.nodePools[name=h100].count=56");
      continue;
    }
    const auto& [path_text, value_text] = *pv;
    if (value_text.size() > kMaxSetValueBytes) {
      fail(assignment, path_text,
           fmt::format("the value is {} bytes; at most {} are accepted", value_text.size(),
                       kMaxSetValueBytes));
      continue;
    }
    std::string perr;
    auto steps = parse_path(path_text, perr);
    if (!steps) {
      fail(assignment, path_text, perr);
      continue;
    }
    // Paths are relative to spec unless they name a top-level field.
    static const std::set<std::string> kTop = {"spec", "metadata", "apiVersion", "kind"};
    if (!kTop.count((*steps)[0].key) || (*steps)[0].name || (*steps)[0].index) {
      steps->insert(steps->begin(), PathStep{"spec", std::nullopt, std::nullopt, "spec"});
    }
    // The value is YAML: 56 is a number, "8" a string, {a: 1} a map; empty removes the field.
    YAML::Node value;
    std::vector<Diagnostic> verr;
    if (!value_text.empty()) {
      auto doc = load_value(value_text, "--set " + assignment, verr);
      if (!doc) {
        errors.insert(errors.end(), verr.begin(), verr.end());
        continue;
      }
      value = *doc;
    }
    // yaml-cpp: `n = m` would overwrite n's node with m's; walking the tree rebinds with reset().
    YAML::Node node;
    node.reset(*root);
    std::string at;
    for (std::size_t k = 0; k < steps->size(); ++k) {
      if (!(*steps)[k].key.empty() && node.IsMap()) merge_dotted_key(*steps, k, node);
      const PathStep& st = (*steps)[k];
      const bool last = k + 1 == steps->size();
      if (!st.key.empty()) {
        if (!node.IsMap()) {
          fail(assignment, at, fmt::format("is not a mapping, so it has no field \"{}\"", st.key));
          break;
        }
        // A queue or job entry wraps its manifest: [name=X].spec... reaches into manifest.spec.
        if (!has_key(node, st.key) && has_key(node, "manifest") && node["manifest"].IsMap() &&
            has_key(node["manifest"], st.key)) {
          YAML::Node m;
          m.reset(node["manifest"]);
          node.reset(m);
          at += at.empty() ? "manifest" : ".manifest";
        }
        at += at.empty() ? st.key : "." + st.key;
        if (last && !st.name && !st.index) {
          if (!value_text.empty()) {
            node[st.key] = value;
          } else if (!node.remove(st.key)) {
            fail(assignment, at, "no such field to remove");
          }
          break;
        }
        if (!has_key(node, st.key)) {
          if (st.name || st.index) {
            fail(assignment, at, "no such list in the scenario");
            break;
          }
          if (value_text.empty()) {
            fail(assignment, at, "no such field, so nothing under it to remove");
            break;
          }
          // A key created here from a name split at its dots would hold the value under the wrong
          // field (nvidia: {com/gpu: ...}): say how to write the name instead.
          if (const std::string hint = dotted_name_hint(*steps, k); !hint.empty()) {
            fail(assignment, at, "no such field" + hint);
            break;
          }
          node[st.key] = YAML::Node(YAML::NodeType::Map);
        }
        YAML::Node next;
        next.reset(node[st.key]);
        node.reset(next);
      }
      if (st.name || st.index) {
        if (!node.IsSequence()) {
          fail(assignment, at,
               fmt::format("is not a list, so {} selects nothing",
                           st.name ? "[name=" + *st.name + "]" : fmt::format("[{}]", *st.index)));
          break;
        }
        std::optional<std::size_t> found;
        if (st.index) {
          if (*st.index < node.size()) found = *st.index;
        } else {
          for (std::size_t j = 0; j < node.size(); ++j) {
            if (item_name(node[j]) == st.name) {
              found = j;
              break;
            }
          }
        }
        if (!found) {
          fail(
              assignment, at,
              st.index
                  ? fmt::format("has {} elements; index {} is out of range", node.size(), *st.index)
                  : fmt::format("has no element named \"{}\" ({})", *st.name, names_in(node)));
          break;
        }
        at += fmt::format("[{}]", *found);
        if (last) {
          if (value_text.empty()) {
            node.remove(*found);
          } else {
            node[*found] = value;
          }
          break;
        }
        YAML::Node next;
        next.reset(node[*found]);
        node.reset(next);
      }
    }
  }
  if (errors.size() != before) return {};
  YAML::Emitter out;
  emit(out, *root);
  return std::string(out.c_str()) + "\n";
}

namespace {

// The map's member, or a null node when the node is no map or has none (never an invalid node,
// which yaml-cpp throws on).
YAML::Node member_of(const YAML::Node& map, const char* key) {
  if (!map.IsMap()) return YAML::Node();
  const YAML::Node x = map[key];
  return x.IsDefined() ? x : YAML::Node();
}

// A plugin map the overlay writes, without its own folder: it runs in `dir`.
void anchor_plugin(YAML::Node plugin, const std::string& dir) {
  if (plugin.IsMap() && member_of(plugin, "command").IsDefined() &&
      !member_of(plugin, "command").IsNull() && member_of(plugin, "workingDir").IsNull()) {
    plugin["workingDir"] = dir;
  }
}

void anchor_plugins(const YAML::Node& overlay, const std::string& dir) {
  const YAML::Node spec = member_of(overlay, "spec");
  const YAML::Node list = member_of(member_of(spec, "plugins"), "controllers");
  if (list.IsSequence()) {
    for (const auto& p : list) anchor_plugin(p, dir);
  }
  anchor_plugin(
      member_of(member_of(member_of(member_of(spec, "controllers"), "options"), "elasticPolicy"),
                "plugin"),
      dir);
}

}  // namespace

std::string merge_overlay(std::string_view base_yaml, std::string_view overlay_yaml,
                          const std::string& overlay_file, std::vector<Diagnostic>& errors,
                          const std::string& plugins_dir) {
  const std::size_t before = errors.size();
  const auto base = load_one(base_yaml, kBaseFile, errors);
  const auto over = load_one(overlay_yaml, overlay_file, errors);
  if (!base || !over) return {};
  if (!plugins_dir.empty()) anchor_plugins(*over, plugins_dir);
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
