#include <stdexcept>
#include <string>

#include "controllers/controller.hpp"
#include "controllers/kinds.hpp"

namespace t9k::controllers {

void Registry::add(std::unique_ptr<Controller> controller) {
  if (!controller) throw std::invalid_argument("Registry::add: null controller");
  if (find(controller->api_version(), controller->kind())) {
    throw std::invalid_argument("Registry::add: a controller for " +
                                std::string(controller->api_version()) + "/" +
                                std::string(controller->kind()) + " is already registered");
  }
  controllers_.push_back(std::move(controller));
}

const Controller* Registry::find(std::string_view api_version, std::string_view kind) const {
  for (const auto& c :
       controllers_) {  // a vector, in registration order: lookups are deterministic
    if (c->api_version() == api_version && c->kind() == kind) return c.get();
  }
  return nullptr;
}

std::vector<const Controller*> Registry::controllers() const {
  std::vector<const Controller*> out;
  for (const auto& c : controllers_) out.push_back(c.get());
  return out;
}

Registry make_default_registry() {
  Registry r;
  for (const auto k : {model::JobKind::GenericJob, model::JobKind::PyTorchTrainingJob,
                       model::JobKind::DeepSpeedJob}) {
    r.add(make_builtin_controller(k));
  }
  return r;
}

std::unique_ptr<Controller> make_builtin_controller(model::JobKind kind) {
  switch (kind) {
    case model::JobKind::GenericJob:
      return std::make_unique<GenericJobController>();
    case model::JobKind::PyTorchTrainingJob:
      return std::make_unique<PyTorchTrainingJobController>();
    case model::JobKind::DeepSpeedJob:
      return std::make_unique<DeepSpeedJobController>();
    case model::JobKind::Plugin:
      break;  // only a plugin knows such a kind
  }
  throw std::invalid_argument("make_builtin_controller: unknown kind");
}

bool is_allowed_transition(std::optional<model::JobPhase> from, model::JobPhase to) {
  using P = model::JobPhase;
  if (!from) return to == P::Pending || to == P::Paused;  // §1.1: created, or created paused
  if (*from == to) return true;
  switch (*from) {
    case P::Pending:
    case P::Resuming:
      return to == P::Running || to == P::Paused || to == P::Succeeded || to == P::Failed ||
             to == P::Unknown;
    case P::Running:
      return to == P::Succeeded || to == P::Failed || to == P::Paused || to == P::Unknown;
    case P::Paused:
      return to == P::Resuming || to == P::Unknown;
    case P::Unknown:
      return true;  // once observable again the job may be found in any phase
    case P::Succeeded:
    case P::Failed:
      return false;  // terminal (§1.1)
  }
  return false;
}

}  // namespace t9k::controllers
