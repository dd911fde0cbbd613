#include "analysis/folder_diff.hpp"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace t9k::analysis {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::vector<IgnoredPart>& ignored_parts() {
  static const std::vector<IgnoredPart> kParts{
      {"plugins/ (at any depth)", "the plugins' logs (stderr): only runs with plugins have them"},
      {"summary.json $.plugins",
       "what crossed to each plugin (calls, bytes, time waited): only runs with plugins have it, "
       "and its wait time is wall time"},
      {"summary.json $.files[<a file under plugins/>]", "the listing of the plugins' logs"},
      {"summary.json $.files[<a nested summary.json>]",
       "the listing of a replication's or variant's summary.json, which holds its plugins section "
       "(the nested file itself is compared, without it)"},
  };
  return kParts;
}

namespace {

bool under_plugins(const std::string& rel) {
  return rel.starts_with("plugins/") || rel.find("/plugins/") != std::string::npos;
}

bool ignored(const std::string& rel, const std::vector<std::string>& extra) {
  if (under_plugins(rel)) return true;
  for (const auto& x : extra) {
    if (rel == x || (x.ends_with('/') && rel.starts_with(x))) return true;
  }
  return false;
}

std::set<std::string> files_of(const fs::path& dir, const std::vector<std::string>& extra,
                               std::size_t& ignored_count) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error(fmt::format("{}: not a folder", dir.string()));
  std::set<std::string> out;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    if (ignored(rel, extra)) {
      ++ignored_count;
      continue;
    }
    out.insert(rel);
  }
  if (ec) throw std::runtime_error(fmt::format("{}: {}", dir.string(), ec.message()));
  return out;
}

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read", file.string()));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// summary.json (and any other JSON the folder lists) without the declared parts.
json normalised(const std::string& text, const std::string& rel) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return j;
  if (rel.ends_with("summary.json")) {
    j.erase("plugins");
    if (j.contains("files") && j["files"].is_object()) {
      for (auto it = j["files"].begin(); it != j["files"].end();) {
        const bool nested_summary = it.key().ends_with("/summary.json");
        it = under_plugins(it.key()) || nested_summary ? j["files"].erase(it) : std::next(it);
      }
    }
  }
  return j;
}

void first_json_difference(const json& a, const json& b, const std::string& path,
                           std::vector<FileDifference>& out, const std::string& file) {
  if (a.type() != b.type()) {
    out.push_back({file, path, a.dump(), b.dump()});
    return;
  }
  if (a.is_object()) {
    for (const auto& [k, v] : a.items()) {
      if (!b.contains(k)) {
        out.push_back({file, path + "." + k, v.dump(), "(absent)"});
        return;
      }
      const std::size_t before = out.size();
      first_json_difference(v, b.at(k), path + "." + k, out, file);
      if (out.size() != before) return;
    }
    for (const auto& [k, v] : b.items()) {
      if (!a.contains(k)) {
        out.push_back({file, path + "." + k, "(absent)", v.dump()});
        return;
      }
    }
    return;
  }
  if (a.is_array()) {
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      const std::string p = fmt::format("{}[{}]", path, i);
      if (i >= a.size() || i >= b.size()) {
        out.push_back({file, p, i < a.size() ? a[i].dump() : "(absent)",
                       i < b.size() ? b[i].dump() : "(absent)"});
        return;
      }
      const std::size_t before = out.size();
      first_json_difference(a[i], b[i], p, out, file);
      if (out.size() != before) return;
    }
    return;
  }
  if (a != b) out.push_back({file, path, a.dump(), b.dump()});
}

void first_line_difference(const std::string& a, const std::string& b, const std::string& file,
                           std::vector<FileDifference>& out) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (std::size_t line = 1;; ++line) {
    const bool ha = static_cast<bool>(std::getline(sa, la));
    const bool hb = static_cast<bool>(std::getline(sb, lb));
    if (!ha && !hb) {
      // Same lines, different bytes: a final newline.
      out.push_back({file, "the end of the file", "", ""});
      return;
    }
    if (ha != hb || la != lb) {
      auto cut = [](const std::string& s) { return s.size() > 300 ? s.substr(0, 300) + "..." : s; };
      out.push_back({file, fmt::format("line {}", line), ha ? cut(la) : "(absent)",
                     hb ? cut(lb) : "(absent)"});
      return;
    }
  }
}

}  // namespace

FolderDiff diff_folders(const fs::path& a, const fs::path& b,
                        const std::vector<std::string>& extra_ignored) {
  FolderDiff d;
  std::size_t ignored_b = 0;
  const auto fa = files_of(a, extra_ignored, d.ignored);
  const auto fb = files_of(b, extra_ignored, ignored_b);
  d.ignored += ignored_b;
  std::set<std::string> all(fa);
  all.insert(fb.begin(), fb.end());
  for (const auto& rel : all) {
    if (!fa.count(rel)) {
      d.differences.push_back({rel, "only in B", "", ""});
      continue;
    }
    if (!fb.count(rel)) {
      d.differences.push_back({rel, "only in A", "", ""});
      continue;
    }
    ++d.compared;
    const std::string ta = read(a / rel), tb = read(b / rel);
    if (rel.ends_with(".json")) {
      const json ja = normalised(ta, rel), jb = normalised(tb, rel);
      if (!ja.is_discarded() && !jb.is_discarded()) {
        first_json_difference(ja, jb, "$", d.differences, rel);
        continue;
      }
    }
    if (ta != tb) first_line_difference(ta, tb, rel, d.differences);
  }
  return d;
}

}  // namespace t9k::analysis
