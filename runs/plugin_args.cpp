#include "runs/plugin_args.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

namespace t9k::runs {

std::optional<std::vector<std::string>> split_command(const std::string& line) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < line.size()) {
        cur += line[++i];
      } else {
        cur += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      cur += line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(cur));
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (quote) return std::nullopt;
  if (in_word) words.push_back(std::move(cur));
  return words;
}

namespace {

const std::vector<std::string> kTargets{"GenericJob", "PyTorchTrainingJob", "DeepSpeedJob",
                                        "controllers", "elastic-policy"};

// "<group>/<version>/<Kind>": two slashes, no part empty.
bool is_own_kind(const std::string& target) {
  const auto first = target.find('/');
  const auto last = target.rfind('/');
  return first != std::string::npos && first > 0 && last > first + 1 && last + 1 < target.size();
}

// "KIND=COMMAND" of --plugin and --reference; an error message on bad input.
std::optional<std::string> parse_target(const std::string& option, const std::string& text,
                                        kernel::SimDuration timeout, std::string& target,
                                        scenarios::PluginSpec& plugin) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) return fmt::format("{} {}: expected KIND=COMMAND", option, text);
  target = text.substr(0, eq);
  // A kind of a plugin's own, by apiVersion and kind ("kubeflow.org/v1/PyTorchJob"): --plugin
  // gives the scenario's plugin for it another command.
  const bool own_kind = option == "--plugin" && is_own_kind(target);
  if (!own_kind && std::find(kTargets.begin(), kTargets.end(), target) == kTargets.end()) {
    return fmt::format(
        "{} {}: found \"{}\"; allowed: GenericJob, PyTorchTrainingJob, DeepSpeedJob, "
        "controllers, elastic-policy{}",
        option, text, target,
        option == "--plugin" ? ", or <group>/<version>/<Kind> of a plugin's own kind" : "");
  }
  const auto words = split_command(text.substr(eq + 1));
  if (!words) return fmt::format("{} {}: an unterminated quote", option, text);
  if (words->empty()) return fmt::format("{} {}: no command after '='", option, text);
  std::string name = own_kind ? target.substr(target.rfind('/') + 1) : target;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (name != "controllers" && name != "elastic-policy") name += "-controller";
  plugin.name = name;
  plugin.command = *words;
  plugin.working_dir = std::filesystem::current_path().string();
  plugin.timeout = timeout;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> parse_plugin_arg(const std::string& text, kernel::SimDuration timeout,
                                            PluginArg& out) {
  const auto eq = text.find('=');
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon > eq)
    return parse_target("--plugin", text, timeout, out.target, out.plugin);
  // VARIANT[,VARIANT...]:KIND=COMMAND
  std::string list = text.substr(0, colon);
  for (std::size_t at = 0; at <= list.size();) {
    const auto comma = std::min(list.find(',', at), list.size());
    std::string v = list.substr(at, comma - at);
    if (v.empty()) return fmt::format("--plugin {}: an empty variant name before ':'", text);
    out.variants.push_back(std::move(v));
    at = comma + 1;
  }
  if (auto err = parse_target("--plugin", text.substr(colon + 1), timeout, out.target, out.plugin))
    return fmt::format("--plugin {}: {}", text, err->substr(err->find(": ") + 2));
  return std::nullopt;
}

std::optional<std::string> parse_reference_arg(const std::string& text, kernel::SimDuration timeout,
                                               ReferenceArg& out) {
  if (text == "builtin") {
    out.target = "builtin";
    out.plugin.reset();
    return std::nullopt;
  }
  scenarios::PluginSpec plugin;
  if (auto err = parse_target("--reference", text, timeout, out.target, plugin)) {
    if (text.find('=') == std::string::npos)
      return fmt::format("--reference {}: expected builtin, KIND=builtin or KIND=COMMAND", text);
    return err;
  }
  if (plugin.command == std::vector<std::string>{"builtin"}) {
    out.plugin.reset();
  } else {
    plugin.name += "-reference";
    out.plugin = std::move(plugin);
  }
  return std::nullopt;
}

void apply_references(sim::PluginSettings& settings, const scenarios::Scenario& sc,
                      const std::vector<ReferenceArg>& references, bool where_plugins_run) {
  const sim::PluginSettings::Reference builtin{};
  auto served = [&](model::JobKind k) {
    return std::any_of(sc.controller_plugins.begin(), sc.controller_plugins.end(),
                       [&](const auto& c) { return c.kind == k; });
  };
  for (const auto& r : references) {
    const sim::PluginSettings::Reference ref{r.plugin};
    if (r.target == "builtin" || r.target == "controllers") {
      // Every kind that runs in a plugin.
      // A plugin's own kind has no built-in controller or reference to compare with.
      for (const auto& c : sc.controller_plugins) {
        if (c.kind != model::JobKind::Plugin) settings.controller_references[c.kind] = ref;
      }
      if (r.target == "builtin" && sc.controllers.elastic_policy_plugin)
        settings.policy_reference = builtin;
    } else if (r.target == "elastic-policy") {
      if (!where_plugins_run || sc.controllers.elastic_policy_plugin)
        settings.policy_reference = ref;
    } else {
      const auto kind = *model::parse_enum<model::JobKind>(r.target);
      if (!where_plugins_run || served(kind)) settings.controller_references[kind] = ref;
    }
  }
}

void apply_plugins(scenarios::Scenario& sc, const std::vector<PluginArg>& plugins) {
  auto set_kind = [&](model::JobKind kind, const scenarios::PluginSpec& p) {
    auto& list = sc.controller_plugins;
    list.erase(
        std::remove_if(list.begin(), list.end(), [&](const auto& c) { return c.kind == kind; }),
        list.end());
    list.push_back({kind, p, {}, {}});
  };
  for (const auto& a : plugins) {
    if (a.target == "elastic-policy") {
      // The scenario's own choice stays in controllers.options: initialize passes it on, so a
      // plugin serving several policies (t9ksim plugin serve) knows which one to run.
      sc.controllers.elastic_policy_plugin = a.plugin;
    } else if (a.target == "controllers") {
      for (const auto k : {model::JobKind::GenericJob, model::JobKind::PyTorchTrainingJob,
                           model::JobKind::DeepSpeedJob}) {
        set_kind(k, a.plugin);
      }
    } else if (const auto kind = model::parse_enum<model::JobKind>(a.target)) {
      set_kind(*kind, a.plugin);
    } else {
      // "<group>/<version>/<Kind>" (parse_target): the plugin for a kind of its own.
      const auto slash = a.target.rfind('/');
      const std::string api = a.target.substr(0, slash), name = a.target.substr(slash + 1);
      auto& list = sc.controller_plugins;
      list.erase(std::remove_if(list.begin(), list.end(),
                                [&](const auto& c) {
                                  return c.kind == model::JobKind::Plugin && c.api_version == api &&
                                         c.kind_name == name;
                                }),
                 list.end());
      list.push_back({model::JobKind::Plugin, a.plugin, api, name});
    }
  }
}

}  // namespace t9k::runs
