#include "plugins/adapters.hpp"

#include <fmt/format.h>

namespace t9k::plugins {

PluginController::PluginController(std::shared_ptr<ControllerSession> session,
                                   std::string api_version, std::string kind)
    : session_(std::move(session)),
      api_version_(std::move(api_version)),
      kind_name_(std::move(kind)) {}

controllers::ReconcileResult PluginController::reconcile(
    const controllers::ReconcileInput& in) const {
  if (model::kind_name(in.job) != kind_name_ || model::api_version_of(in.job) != api_version_)
    throw std::invalid_argument("PluginController: a job of another kind");
  return session_->reconcile(in);
}

void PluginController::complete(model::Job& job) const {
  auto* p = std::get_if<model::PluginJob>(&job);
  if (!p) return;
  const model::PluginKindRule& rule = session_->rule(*p);
  try {
    p->spec.replica_specs = protocol::plugin_replica_specs(*p, rule);
  } catch (const protocol::ProtocolError& e) {
    throw std::invalid_argument(
        fmt::format("{} {} \"{}\": {} (plugin {} declared its replica specs there)", p->api_version,
                    p->kind, p->metadata.name, e.what(), session_->name()));
  }
}

PluginPolicy::PluginPolicy(std::shared_ptr<Client> client)
    : client_(std::move(client)),
      name_(client_->hello().name.empty()
                ? "plugin " + client_->name()
                : fmt::format("plugin {} ({})", client_->name(), client_->hello().name)) {}

policies::ElasticDecisions PluginPolicy::decide(const policies::ElasticObservation& o) const {
  const std::string context = fmt::format("at t={} s", kernel::format_seconds(o.now));
  auto fail = [&](const protocol::ProtocolError& e) {
    return PluginError(fmt::format("plugin {}: decide {}: {}", client_->name(), context, e.what()));
  };
  client_->count_items(1);
  if (client_->version() == 1) {
    const protocol::Reply reply = client_->call("decide", protocol::decide_params(o), context);
    try {
      return protocol::decode_decide_result(reply, o);
    } catch (const protocol::ProtocolError& e) {
      throw fail(e);
    }
  }
  for (int round = 0;; ++round) {
    const protocol::Reply reply = client_->call("decide", observations_.params(o), context);
    protocol::DecideAnswer answer;
    try {
      answer = protocol::decode_decide_answer(reply, o);
    } catch (const protocol::ProtocolError& e) {
      throw fail(e);
    }
    if (!answer.resync) return std::move(answer.decisions);
    if (round > 0) {
      throw PluginError(fmt::format(
          "plugin {}: decide {}: result.resync: asked again right after a whole observation",
          client_->name(), context));
    }
    observations_.resync();
  }
}

}  // namespace t9k::plugins
