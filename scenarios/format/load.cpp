// Loading a scenario file: YAML documents to a Scenario through the decoder
// (detail/decoder.hpp), the job budget, and `t9ksim validate`'s entry points.
#include "scenarios/format/load.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "scenarios/format/detail/decoder.hpp"
#include "scenarios/format/traces.hpp"

namespace t9k::scenarios {

using namespace detail;

namespace {

bool first_document_is_scenario(const std::vector<YamlDocument>& docs) {
  for (const auto& d : docs) {
    if (!d.node.IsDefined() || d.node.IsNull()) continue;
    if (!d.node.IsMap()) return false;
    const YAML::Node kind = d.node["kind"];
    return kind.IsDefined() && kind.IsScalar() &&
           kind.Scalar() == kScenarioKind;  // IsDefined first: see remember_broken
  }
  return false;
}

ScenarioResult decode_scenario_docs(const std::vector<YamlDocument>& docs, const std::string& file,
                                    const LoadOptions& options, std::vector<Diagnostic> diags) {
  ScenarioResult result;
  int index = -1;
  const YamlDocument* root = nullptr;
  for (const auto& d : docs) {
    ++index;
    if (!d.node.IsDefined() || d.node.IsNull()) continue;
    if (root) {
      diags.push_back(Diagnostic{Severity::Error, file, d.line, 1, index, "",
                                 "found a second document; allowed: one Scenario per file (put "
                                 "manifests in files referenced by path)"});
      continue;
    }
    root = &d;
  }
  if (!root) {
    diags.push_back(
        Diagnostic{Severity::Error, file, 0, 0, 0, "", "found no documents; allowed: a Scenario"});
    result.diagnostics = std::move(diags);
    return result;
  }
  Report r(file, diags, 0, work_budget(root->bytes));
  std::optional<Scenario> sc;
  detail::ScenarioDecoder dec(r, diags, options);
  try {
    sc = dec.scenario(Val{root->node, root->node.Mark(), ""});
  } catch (const BudgetExceeded&) {
    add_budget_diagnostic(diags, file, 0, root->line);
  }
  result.files.assign(dec.files().begin(), dec.files().end());
  if (!has_errors(diags) && sc && options.max_jobs > 0) {
    // Refused before anything runs: a scenario that would submit more jobs than the budget would
    // otherwise fill memory or run for days (docs/reliability.md "Scenario budgets").
    const JobEstimate est = estimate_jobs(*sc);
    if (est.total > static_cast<double>(options.max_jobs)) {
      const auto biggest =
          std::max_element(est.sources.begin(), est.sources.end(),
                           [](const JobSource& a, const JobSource& b) { return a.jobs < b.jobs; });
      diags.push_back(
          Diagnostic{Severity::Error, file, 0, 0, 0, biggest->path,
                     fmt::format("found about {:.3g} jobs per replication from here ({}), {:.3g} "
                                 "in all; allowed: at most {} "
                                 "(--max-jobs): shorten spec.horizon, lower the rate, set count or "
                                 "limit, or raise --max-jobs",
                                 biggest->jobs, biggest->how, est.total, options.max_jobs)});
    }
  }
  if (!has_errors(diags)) result.scenario = std::move(sc);
  result.diagnostics = std::move(diags);
  return result;
}

std::string folder_of(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace

ScenarioResult parse_scenario(std::string_view text, const std::string& file, LoadOptions options) {
  if (options.base_dir.empty()) options.base_dir = ".";
  std::vector<Diagnostic> diags;
  const auto docs = parse_yaml(text, file, diags);
  if (!docs) {
    ScenarioResult r;
    r.diagnostics = std::move(diags);
    return r;
  }
  return decode_scenario_docs(*docs, file, options, std::move(diags));
}

ScenarioResult load_scenario(const std::string& path, LoadOptions options) {
  if (options.base_dir.empty()) options.base_dir = folder_of(path);
  std::string text;
  std::vector<Diagnostic> diags;
  if (!read_text_file(path, text, diags)) {
    ScenarioResult r;
    r.diagnostics = std::move(diags);
    return r;
  }
  return parse_scenario(text, path, options);
}

std::vector<Diagnostic> validate_text(std::string_view text, const std::string& file,
                                      LoadOptions options) {
  if (options.base_dir.empty()) options.base_dir = ".";
  std::vector<Diagnostic> diags;
  const auto docs = parse_yaml(text, file, diags);
  if (!docs) return diags;
  if (first_document_is_scenario(*docs)) {
    return decode_scenario_docs(*docs, file, options, std::move(diags)).diagnostics;
  }
  std::vector<LoadedObject> objects;
  decode_manifest_documents(*docs, file, "", objects, diags);
  if (objects.empty() && !has_errors(diags)) {
    diags.push_back(Diagnostic{Severity::Error, file, 0, 0, 0, "",
                               "found no objects; allowed: a Scenario, or one or more T9k objects "
                               "separated by \"---\""});
  }
  for (auto& d : lint_objects(objects)) diags.push_back(std::move(d));
  // A cluster export: its Nodes are checked as spec.cluster.fromExport reads them, and what that
  // would build is said (docs/traces.md "Cluster from an export").
  const bool has_nodes = std::any_of(docs->begin(), docs->end(), [](const auto& doc) {
    if (!is_kube_list(doc.node) || !doc.node["items"].IsSequence()) return false;
    for (const auto& item : doc.node["items"]) {
      if (item.IsMap() && item["kind"].IsDefined() && item["kind"].IsScalar() &&
          item["kind"].Scalar() == "Node")
        return true;
    }
    return false;
  });
  if (has_nodes) {
    std::vector<Diagnostic> cluster;
    const auto c = parse_export_cluster(std::string(text), file, cluster);
    for (auto& d : cluster) {
      // Queues were checked as manifests above. A Node the cluster reader refuses does not stop
      // the manifests from loading: a warning that says what it would stop.
      if (d.message.starts_with("found an invalid Queue")) continue;
      if (d.severity == Severity::Error) {
        d.severity = Severity::Warning;
        d.message = "spec.cluster.fromExport would refuse this: " + d.message;
      }
      diags.push_back(std::move(d));
    }
    if (c) {
      for (const auto& n : c->notes)
        diags.push_back(Diagnostic{n.severity, file, 0, 0, 0, "", n.message});
    }
  }
  return diags;
}

bool read_input_file(const std::string& path, std::string& text, std::vector<Diagnostic>& out) {
  return read_text_file(path, text, out);
}

std::vector<Diagnostic> validate_file(const std::string& path) {
  std::string text;
  std::vector<Diagnostic> diags;
  if (!read_text_file(path, text, diags)) return diags;
  LoadOptions options;
  options.base_dir = folder_of(path);
  return validate_text(text, path, options);
}

}  // namespace t9k::scenarios
