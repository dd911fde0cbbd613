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

std::optional<std::string> parse_plugin_arg(const std::string& text, kernel::SimDuration timeout,
                                            PluginArg& out) {
  const auto eq = text.find('=');
  static const std::vector<std::string> kTargets{"GenericJob", "PyTorchTrainingJob", "DeepSpeedJob",
                                                 "controllers", "elastic-policy"};
  if (eq == std::string::npos) return fmt::format("--plugin {}: expected KIND=COMMAND", text);
  out.target = text.substr(0, eq);
  if (std::find(kTargets.begin(), kTargets.end(), out.target) == kTargets.end()) {
    return fmt::format(
        "--plugin {}: found \"{}\"; allowed: GenericJob, PyTorchTrainingJob, DeepSpeedJob, "
        "controllers, "
        "elastic-policy",
        text, out.target);
  }
  const auto words = split_command(text.substr(eq + 1));
  if (!words) return fmt::format("--plugin {}: an unterminated quote", text);
  if (words->empty()) return fmt::format("--plugin {}: no command after '='", text);
  std::string name = out.target;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (name != "controllers" && name != "elastic-policy") name += "-controller";
  out.plugin.name = name;
  out.plugin.command = *words;
  out.plugin.working_dir = std::filesystem::current_path().string();
  out.plugin.timeout = timeout;
  return std::nullopt;
}

void apply_plugins(scenarios::Scenario& sc, const std::vector<PluginArg>& plugins) {
  auto set_kind = [&](model::JobKind kind, const scenarios::PluginSpec& p) {
    auto& list = sc.controller_plugins;
    list.erase(
        std::remove_if(list.begin(), list.end(), [&](const auto& c) { return c.kind == kind; }),
        list.end());
    list.push_back({kind, p});
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
    } else {
      set_kind(*model::parse_enum<model::JobKind>(a.target), a.plugin);
    }
  }
}

}  // namespace t9k::runs
