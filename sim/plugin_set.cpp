#include "sim/plugin_set.hpp"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "plugins/adapters.hpp"

namespace t9k::sim {

namespace {

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

PluginSet::PluginSet(const WorldSettings& st) {
  const auto& ps = st.plugins;
  std::map<std::string, const scenarios::PluginSpec*> by_name;
  auto claim = [&](const scenarios::PluginSpec& p) {
    const auto [it, fresh] = by_name.emplace(p.name, &p);
    if (!fresh && !(*it->second == p)) {
      throw ScenarioError(
          fmt::format("two different plugins are named \"{}\"; give each its own name", p.name));
    }
  };
  // One process per distinct plugin: kinds with the same spec share it.
  std::vector<std::pair<const scenarios::PluginSpec*, std::vector<model::JobKind>>> groups;
  for (const auto& c : ps.controllers) {
    claim(c.plugin);
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const auto& x) { return *x.first == c.plugin; });
    if (g == groups.end()) {
      groups.push_back({&c.plugin, {c.kind}});
    } else {
      g->second.push_back(c.kind);
    }
  }
  protocol::PolicySettings policy{st.elastic_policy, st.policy_options, st.elastic_policy_period};
  if (!groups.empty() || ps.elastic_policy) pin_.emplace();
  for (const auto& [spec, kinds] : groups) {
    std::vector<std::string> names;
    for (const auto k : kinds) names.emplace_back(model::to_string(k));
    auto client = std::make_shared<plugins::Client>(
        process_spec(*spec, ps.log_dir), protocol::Role::Controller, names, ps.simulator_version,
        st.controller_options, policy);
    clients_.push_back(client);
    for (const auto k : kinds) controllers_.push_back({k, client});
  }
  if (ps.elastic_policy) {
    claim(*ps.elastic_policy);
    policy_ = std::make_shared<plugins::Client>(
        process_spec(*ps.elastic_policy, ps.log_dir), protocol::Role::ElasticPolicy,
        std::vector<std::string>{}, ps.simulator_version, st.controller_options, policy);
    clients_.push_back(policy_);
  }
}

controllers::Registry PluginSet::registry() const {
  controllers::Registry out;
  for (const auto kind : {model::JobKind::GenericJob, model::JobKind::PyTorchTrainingJob,
                          model::JobKind::DeepSpeedJob}) {
    const auto served = std::find_if(controllers_.begin(), controllers_.end(),
                                     [&](const Served& s) { return s.kind == kind; });
    if (served != controllers_.end()) {
      out.add(std::make_unique<plugins::PluginController>(served->client, kind));
    } else {
      out.add(controllers::make_builtin_controller(kind));
    }
  }
  return out;
}

std::unique_ptr<policies::ElasticPolicy> PluginSet::policy() const {
  if (!policy_) return nullptr;
  return std::make_unique<plugins::PluginPolicy>(policy_);
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
