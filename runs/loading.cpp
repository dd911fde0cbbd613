#include "runs/loading.hpp"

#include "sim/settings.hpp"

namespace t9k::runs {

std::vector<scenarios::SourceText> sources_of(const std::string& file, const std::string& text) {
  if (file.empty() || file.front() == '<') return {};
  return {{file, text}};
}

std::vector<scenarios::Diagnostic> settings_problems(const scenarios::Scenario& sc,
                                                     const std::string& name) {
  try {
    (void)sim::settings_from_scenario(sc);
    return {};
  } catch (const sim::ScenarioError& e) {
    const auto at = [&](const std::string& path, const std::string& message) {
      scenarios::Diagnostic d;
      d.file = name;
      d.path = path;
      d.message = message;
      if (const auto it = sc.option_marks.find(path); it != sc.option_marks.end()) {
        d.line = it->second.first;
        d.column = it->second.second;
      }
      return d;
    };
    if (e.problems().empty()) return {at("", e.what())};
    std::vector<scenarios::Diagnostic> out;
    for (const auto& p : e.problems()) out.push_back(at(p.path, p.message));
    return out;
  }
}

scenarios::ScenarioResult load_runnable(const std::string& text, const std::string& name,
                                        const scenarios::LoadOptions& options) {
  return load_checked(text, name, options, settings_problems);
}

PreloadedScenario::PreloadedScenario(std::string text, std::string name,
                                     scenarios::ScenarioResult result, std::size_t runs)
    : text_(std::move(text)),
      name_(std::move(name)),
      ok_(result.ok()),
      result_(std::move(result)),
      copies_left_(runs) {}

scenarios::ScenarioResult PreloadedScenario::copy() const {
  const std::lock_guard lock(mu_);
  scenarios::ScenarioResult r = result_;
  if (copies_left_ > 0 && --copies_left_ == 0 && result_.scenario) {
    for (auto& t : result_.scenario->workload.traces) t.data.reset();  // the last copy has it
  }
  return r;
}

}  // namespace t9k::runs
