// spec.controllers, spec.kubelet and spec.plugins.
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kControllers[] = {"reconcileLatency", "options"};
constexpr std::string_view kKubelet[] = {"podStartLatency", "podStopLatency"};
constexpr std::string_view kPlugins[] = {"controllers"};
constexpr std::string_view kControllerPlugin[] = {"kind",    "apiVersion", "command",
                                                  "timeout", "name",       "workingDir"};
constexpr std::string_view kPolicyPlugin[] = {"plugin"};

}  // namespace

void ScenarioDecoder::controllers(const Val& v, Scenario& sc) {
  MapReader c(r_, v, kControllers);
  if (auto x = duration_dist(r_, c.get("reconcileLatency"))) sc.controllers.reconcile_latency = *x;
  controller_options(c.get("options"), sc);
}

void ScenarioDecoder::kubelet(const Val& v, Scenario& sc) {
  MapReader k(r_, v, kKubelet);
  if (auto x = duration_dist(r_, k.get("podStartLatency"))) sc.kubelet.pod_start_latency = *x;
  if (auto x = duration_dist(r_, k.get("podStopLatency"))) sc.kubelet.pod_stop_latency = *x;
}

// controllers.options: strings, except elasticPolicy, which may name a plugin.
void ScenarioDecoder::controller_options(const Val& v, Scenario& sc) {
  static constexpr std::string_view kStructured[] = {"elasticPolicy"};
  for (auto& [k, val] : FreeMap(r_, v, kStructured).entries()) {
    if (k == "elasticPolicy" && val.present() && val.node.IsMap()) {
      MapReader p(r_, val, kPolicyPlugin);
      if (!require(r_, p.get("plugin"))) continue;
      if (auto spec = plugin(p.get("plugin"), "elastic-policy"))
        sc.controllers.elastic_policy_plugin = std::move(*spec);
      sc.controllers.options[k] = "plugin";
      mark_option(sc, val);
      continue;
    }
    sc.controllers.options[k] = val.present() ? val.node.Scalar() : "";
    mark_option(sc, val);
  }
}

std::optional<PluginSpec> ScenarioDecoder::plugin(const Val& v, const std::string& default_name,
                                                  std::span<const std::string_view> fields) {
  MapReader mr(r_, v, fields);
  if (!mr.ok()) return std::nullopt;
  PluginSpec p;
  p.name = default_name;
  p.working_dir = options_.base_dir;
  // workingDir: the folder the command runs in, relative to the scenario's (an overlay's plugin
  // gets its own folder this way, scenarios/format/overlay.hpp).
  if (auto x = read_string(r_, mr.get("workingDir"))) {
    const std::filesystem::path dir(*x);
    p.working_dir = (dir.is_absolute() ? dir : std::filesystem::path(options_.base_dir) / dir)
                        .lexically_normal()
                        .string();
    if (options_.allow_file_references && !std::filesystem::is_directory(p.working_dir)) {
      r_.error(mr.get("workingDir").mark, mr.get("workingDir").path,
               fmt::format("found \"{}\", which is not a folder; allowed: a folder, relative to "
                           "the scenario's",
                           *x));
    }
  }
  const std::size_t before = r_.error_count();
  if (auto x = read_string(r_, mr.get("name"))) {
    if (!is_dns1123_label(*x)) {
      r_.error(
          mr.get("name").mark, mr.get("name").path,
          fmt::format("found \"{}\"; allowed: a DNS-1123 label (its log is OUT/plugins/<name>.log)",
                      *x));
    }
    p.name = *x;
  }
  const Val cmd = mr.get("command");
  if (require(r_, cmd)) {
    for (const Val& item : read_list(r_, cmd)) {
      if (auto x = read_string(r_, item)) p.command.push_back(*x);
    }
    if (cmd.node.IsSequence() && cmd.node.size() == 0) {
      r_.error(cmd.mark, cmd.path, "found an empty list; allowed: the program and its arguments");
    }
    if (!p.command.empty() && p.command.front().find('/') != std::string::npos &&
        options_.allow_file_references) {
      const auto path = std::filesystem::path(p.working_dir) / p.command.front();
      files_.insert(path.string());
      if (!std::filesystem::is_regular_file(path)) {
        r_.error(cmd.mark, cmd.path + "[0]",
                 fmt::format("found \"{}\", which is not a file; allowed: a program, on PATH or "
                             "relative to the folder it runs in ({})",
                             p.command.front(), p.working_dir));
      }
    }
  }
  if (auto x = read_duration(r_, mr.get("timeout"))) {
    if (x->count() <= 0) {
      r_.error(mr.get("timeout").mark, mr.get("timeout").path, "found 0; allowed: a duration > 0");
    } else {
      p.timeout = *x;
    }
  }
  if (r_.error_count() != before) return std::nullopt;
  return p;
}

void ScenarioDecoder::plugins(const Val& v, Scenario& sc) {
  MapReader mr(r_, v, kPlugins);
  std::set<std::pair<std::string, std::string>> kinds;  // (apiVersion, kind)
  for (const Val& item : read_list(r_, mr.get("controllers"))) {
    MapReader e(r_, item, kControllerPlugin);
    if (!e.ok()) continue;
    const Val kv = e.get("kind");
    if (!require(r_, kv)) continue;
    ControllerPlugin c;
    const auto api = read_string(r_, e.get("apiVersion"));
    if (api && *api != model::kBatchApiVersion) {
      // A kind of the plugin's own (docs/plugins-go.md "Kinds of your own").
      const auto slash = api->find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == api->size()) {
        r_.error(e.get("apiVersion").mark, e.get("apiVersion").path,
                 fmt::format("found \"{}\"; allowed: {} or \"<group>/<version>\" of a kind "
                             "the plugin serves",
                             *api, model::kBatchApiVersion));
        continue;
      }
      const auto kind = read_string(r_, kv);
      if (!kind) continue;
      c.kind = model::JobKind::Plugin;
      c.api_version = *api;
      c.kind_name = *kind;
    } else {
      const auto kind = read_enum<model::JobKind>(r_, kv);
      if (!kind) continue;
      c.kind = *kind;
      c.api_version = model::kBatchApiVersion;
      c.kind_name = model::to_string(*kind);
    }
    if (!kinds.emplace(c.api_version, c.kind_name).second) {
      r_.error(kv.mark, kv.path,
               fmt::format("found {} a second time; allowed: one plugin per kind", c.kind_name));
      continue;
    }
    std::string name = c.kind_name;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
    if (auto spec = plugin(item, name + "-controller", kControllerPlugin)) {
      c.plugin = std::move(*spec);
      sc.controller_plugins.push_back(std::move(c));
    }
  }
}

}  // namespace t9k::scenarios::detail
