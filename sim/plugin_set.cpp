#include "sim/plugin_set.hpp"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "plugins/adapters.hpp"
#include "plugins/differential.hpp"

namespace t9k::sim {

namespace {

constexpr model::JobKind kKinds[] = {model::JobKind::GenericJob, model::JobKind::PyTorchTrainingJob,
                                     model::JobKind::DeepSpeedJob};

plugins::ProcessSpec process_spec(const scenarios::PluginSpec& p, const std::string& log_dir) {
  plugins::ProcessSpec s;
  s.name = p.name;
  s.command = p.command;
  s.working_dir = p.working_dir;
  s.timeout = std::chrono::milliseconds(std::max<std::int64_t>(1, p.timeout.count() / 1000));
  if (!log_dir.empty()) {
    std::filesystem::create_directories(log_dir);
    s.log_path = (std::filesystem::path(log_dir) / (p.name + ".log")).string();
  }
  return s;
}

}  // namespace

PluginSet::PluginSet(const WorldSettings& st) : st_(st) {
  const auto& ps = st.plugins;
  std::map<std::string, const scenarios::PluginSpec*> by_name;
  auto claim = [&](const scenarios::PluginSpec& p) {
    const auto [it, fresh] = by_name.emplace(p.name, &p);
    if (!fresh && !(*it->second == p)) {
      throw ScenarioError(
          fmt::format("two different plugins are named \"{}\"; give each its own name", p.name));
    }
  };
  for (const auto& c : ps.controllers) claim(c.plugin);
  if (ps.elastic_policy) claim(*ps.elastic_policy);
  // References: a plugin to compare with, for kinds and a policy that run in a plugin.
  std::vector<scenarios::ControllerPlugin> reference_plugins;
  for (const auto& [kind, ref] : ps.controller_references) {
    const bool served = std::any_of(ps.controllers.begin(), ps.controllers.end(),
                                    [&](const auto& c) { return c.kind == kind; });
    if (!served) {
      throw ScenarioError(
          fmt::format("--reference {}: no plugin runs {}: a reference is compared with a plugin "
                      "(--plugin {}=...)",
                      model::to_string(kind), model::to_string(kind), model::to_string(kind)));
    }
    if (ref.plugin) {
      claim(*ref.plugin);
      reference_plugins.push_back({kind, *ref.plugin, {}, {}});
    }
  }
  if (ps.policy_reference && !ps.elastic_policy) {
    throw ScenarioError(
        "--reference elastic-policy: the elastic policy runs in process: a reference is compared "
        "with a plugin (--plugin elastic-policy=...)");
  }
  if (ps.policy_reference && ps.policy_reference->plugin) claim(*ps.policy_reference->plugin);
  if (ps.policy_reference && !ps.policy_reference->plugin &&
      !policies::make_elastic_policy(st.elastic_policy, st.policy_options)) {
    throw ScenarioError(fmt::format(
        "--reference elastic-policy=builtin: the scenario's elastic policy \"{}\" is not a "
        "built-in one to compare with",
        st.elastic_policy));
  }
  protocol::PolicySettings policy{st.elastic_policy, st.policy_options, st.elastic_policy_period};
  if (!ps.controllers.empty() || ps.elastic_policy) pin_.emplace();
  controllers_ = start_controllers(ps.controllers, policy);
  references_ = start_controllers(reference_plugins, policy);
  auto start_policy = [&](const scenarios::PluginSpec& spec) {
    auto client = std::make_shared<plugins::Client>(
        process_spec(spec, ps.log_dir), protocol::Role::ElasticPolicy, std::vector<std::string>{},
        ps.simulator_version, st.controller_options, policy);
    clients_.push_back(client);
    return client;
  };
  if (ps.elastic_policy) policy_ = start_policy(*ps.elastic_policy);
  if (ps.policy_reference && ps.policy_reference->plugin)
    policy_reference_ = start_policy(*ps.policy_reference->plugin);
}

std::vector<PluginSet::Served> PluginSet::start_controllers(
    const std::vector<scenarios::ControllerPlugin>& plugins,
    const protocol::PolicySettings& policy) {
  // One process per distinct plugin: kinds with the same spec share it.
  std::vector<
      std::pair<const scenarios::PluginSpec*, std::vector<const scenarios::ControllerPlugin*>>>
      groups;
  for (const auto& c : plugins) {
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const auto& x) { return *x.first == c.plugin; });
    if (g == groups.end()) {
      groups.push_back({&c.plugin, {&c}});
    } else {
      g->second.push_back(&c);
    }
  }
  std::vector<Served> out;
  const auto& ps = st_.plugins;
  for (const auto& [spec, kinds] : groups) {
    std::vector<std::string> names;
    for (const auto* k : kinds) {
      names.emplace_back(k->kind == model::JobKind::Plugin ? k->kind_name
                                                           : model::to_string(k->kind));
    }
    auto client = std::make_shared<plugins::Client>(
        process_spec(*spec, ps.log_dir), protocol::Role::Controller, names, ps.simulator_version,
        st_.controller_options, policy);
    clients_.push_back(client);
    auto session = std::make_shared<plugins::ControllerSession>(client, names);
    for (const auto* k : kinds) {
      if (k->kind == model::JobKind::Plugin) {
        const auto& declared = client->hello().kinds;
        const bool found = std::any_of(declared.begin(), declared.end(), [&](const auto& d) {
          return d.api_version == k->api_version && d.kind == k->kind_name;
        });
        if (!found) {
          throw ScenarioError(fmt::format(
              "plugin {} serves {} {} (spec.plugins.controllers) but did not declare that kind "
              "at initialize: where its replica specs are and how its phase is read (result.kinds, "
              "docs/plugins-go.md \"Kinds of your own\")",
              spec->name, k->api_version, k->kind_name));
        }
      }
      out.push_back({k->kind, k->api_version, k->kind_name, session});
    }
  }
  return out;
}

std::unique_ptr<controllers::Controller> PluginSet::controller(
    model::JobKind kind, const std::vector<Served>& from) const {
  const auto served =
      std::find_if(from.begin(), from.end(), [&](const Served& s) { return s.kind == kind; });
  if (served == from.end()) return nullptr;
  return std::make_unique<plugins::PluginController>(served->session, model::kBatchApiVersion,
                                                     std::string(model::to_string(kind)));
}

controllers::Registry PluginSet::registry() const {
  controllers::Registry out;
  for (const auto& s : controllers_) {
    if (s.kind == model::JobKind::Plugin)
      out.add(std::make_unique<plugins::PluginController>(s.session, s.api_version, s.kind_name));
  }
  for (const auto kind : kKinds) {
    auto plugin = controller(kind, controllers_);
    if (!plugin) {
      out.add(controllers::make_builtin_controller(kind));
      continue;
    }
    const auto ref = st_.plugins.controller_references.find(kind);
    if (ref == st_.plugins.controller_references.end()) {
      out.add(std::move(plugin));
      continue;
    }
    const std::string test_name = fmt::format(
        "plugin {}", std::find_if(controllers_.begin(), controllers_.end(), [&](const Served& s) {
                       return s.kind == kind;
                     })->session->name());
    if (ref->second.plugin) {
      out.add(std::make_unique<plugins::DifferentialController>(
          std::move(plugin), test_name, controller(kind, references_),
          fmt::format("the reference plugin {}", ref->second.plugin->name)));
    } else {
      out.add(std::make_unique<plugins::DifferentialController>(
          std::move(plugin), test_name, controllers::make_builtin_controller(kind),
          "the built-in controller"));
    }
  }
  return out;
}

std::unique_ptr<policies::ElasticPolicy> PluginSet::policy() const {
  if (!policy_) return nullptr;
  auto plugin = std::make_unique<plugins::PluginPolicy>(policy_);
  const auto& ref = st_.plugins.policy_reference;
  if (!ref) return plugin;
  std::unique_ptr<policies::ElasticPolicy> reference =
      policy_reference_ ? std::unique_ptr<policies::ElasticPolicy>(
                              std::make_unique<plugins::PluginPolicy>(policy_reference_))
                        : policies::make_elastic_policy(st_.elastic_policy, st_.policy_options);
  return std::make_unique<plugins::DifferentialPolicy>(std::move(plugin), std::move(reference));
}

void PluginSet::shutdown() {
  std::exception_ptr first;
  for (auto& c : clients_) {
    try {
      c->shutdown();
    } catch (const plugins::PluginError&) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace t9k::sim
