#include "plugins/serve.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "policies/elastic.hpp"
#include "protocol/v2.hpp"

namespace t9k::plugins {

namespace {

bool read_line(std::FILE* in, std::string& line) {
  line.clear();
  char buf[65536];
  while (std::fgets(buf, sizeof buf, in)) {
    line += buf;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      return true;
    }
  }
  return !line.empty();
}

void write_line(std::FILE* out, const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), out);
  std::fputc('\n', out);
  std::fflush(out);
}

// What a version 2 server keeps of each job (docs/protocol-v2.md §2).
struct ServedJob {
  model::Job job;  // with the status it holds
  std::vector<model::Pod> pods;
  std::optional<model::PodGroup> pod_group;
  std::optional<controllers::TensorBoardObservation> tensorboard;
};

// Applies an update; false when it cannot (a job or pod it does not have): ask for a resync.
bool apply(std::map<std::string, ServedJob>& jobs, protocol::JobUpdateIn& u) {
  if (u.resync) {
    ServedJob s;
    s.job = std::move(*u.job);
    if (u.status) model::status_of(s.job) = std::move(*u.status);
    s.pods = std::move(u.pods);
    s.pod_group = std::move(u.pod_group);
    s.tensorboard = std::move(u.tensorboard);
    jobs.insert_or_assign(u.uid, std::move(s));
    return true;
  }
  const auto it = jobs.find(u.uid);
  if (it == jobs.end()) return false;
  ServedJob& s = it->second;
  if (u.job) {
    model::JobStatus kept = std::move(model::status_of(s.job));
    s.job = std::move(*u.job);
    model::status_of(s.job) = std::move(kept);
  }
  if (u.has_status) model::status_of(s.job) = u.status ? std::move(*u.status) : model::JobStatus{};
  for (const auto& uid : u.removed_pods) {
    const auto p = std::find_if(s.pods.begin(), s.pods.end(),
                                [&](const model::Pod& x) { return x.metadata.uid == uid; });
    if (p == s.pods.end()) return false;
    s.pods.erase(p);
  }
  for (const auto& patch : u.pod_patches) {
    const auto p = std::find_if(s.pods.begin(), s.pods.end(),
                                [&](const model::Pod& x) { return x.metadata.uid == patch.uid; });
    if (p == s.pods.end()) return false;
    protocol::apply_pod_patch(patch, *p);
  }
  for (auto& pod : u.pods) {
    const auto p = std::find_if(s.pods.begin(), s.pods.end(), [&](const model::Pod& x) {
      return x.metadata.uid == pod.metadata.uid;
    });
    if (p != s.pods.end()) {
      *p = std::move(pod);
    } else {
      s.pods.push_back(std::move(pod));
    }
  }
  if (u.has_pod_group) s.pod_group = std::move(u.pod_group);
  if (u.has_tensorboard) s.tensorboard = std::move(u.tensorboard);
  return true;
}

class Server {
 public:
  Server(protocol::Role role, const std::optional<std::string>& policy, int max_version)
      : role_(role), policy_name_(policy), max_version_(max_version) {}

  // One request's reply line; throws for an error reply.
  std::optional<std::string> answer(const protocol::Request& req, const std::string& id) {
    const std::string& method = req.method();
    if (method == "initialize") return initialize(req, id);
    if (method == "reconcile" && role_ == protocol::Role::Controller) {
      if (version_ == 2) return protocol::result_line(id, reconcile_batch(req));
      const auto input = protocol::decode_reconcile(req, specs_);
      return protocol::result_line(
          id, protocol::reconcile_result(controller_for(input.job).reconcile(input.view())));
    }
    if (method == "decide" && role_ == protocol::Role::ElasticPolicy) {
      if (!policy_) throw protocol::ProtocolError("decide before initialize");
      const auto o = version_ == 2 ? observations_.apply(req) : protocol::decode_decide(req);
      return protocol::result_line(id, protocol::decide_result(policy_->decide(o), o));
    }
    if (method == "shutdown") return std::nullopt;
    return protocol::error_line(id, -32601,
                                fmt::format("method \"{}\" is not served here", method));
  }

 private:
  std::string initialize(const protocol::Request& req, const std::string& id) {
    const auto init = protocol::decode_initialize(req);
    if (init.role != role_) {
      return protocol::error_line(
          id, -32602,
          fmt::format("this server is a {}, not a {}", protocol::to_string(role_),
                      protocol::to_string(init.role)));
    }
    const auto& offered = init.protocol_versions;
    const bool two = max_version_ >= 2 && std::find(offered.begin(), offered.end(),
                                                    protocol::kProtocolVersion2) != offered.end();
    version_ = two ? 2 : 1;
    options_ = init.controller_options;
    protocol::Hello hello{
        std::string(two ? protocol::kProtocolVersion2 : protocol::kProtocolVersion), "", true, {}};
    if (role_ == protocol::Role::ElasticPolicy) {
      const std::string name = policy_name_.value_or(init.policy_settings.policy);
      policy_ = policies::make_elastic_policy(name, init.policy_settings.options);
      if (!policy_) {
        return protocol::error_line(id, -32602,
                                    fmt::format("no built-in elastic policy named \"{}\"", name));
      }
      hello.name = "t9ksim-builtin-" + name;
      hello.decides = policy_->decides();
    } else {
      hello.name = "t9ksim-builtin-controllers";
    }
    return protocol::result_line(id, protocol::hello_result(hello));
  }

  const controllers::Controller& controller_for(const model::Job& job) const {
    const auto kind = model::to_string(model::kind_of(job));
    const controllers::Controller* c = registry_.find(model::kBatchApiVersion, kind);
    if (!c)
      throw protocol::ProtocolError(
          fmt::format("params.job.kind: no built-in controller for {}", kind));
    return *c;
  }

  std::string reconcile_batch(const protocol::Request& req) {
    auto batch = protocol::decode_reconcile_batch(req, specs_);
    for (const auto& uid : batch.forget) jobs_.erase(uid);
    std::vector<controllers::ReconcileResult> results(batch.jobs.size());
    std::vector<model::JobStatus> kept(batch.jobs.size());
    std::vector<protocol::JobAnswerOut> out(batch.jobs.size());
    for (std::size_t i = 0; i < batch.jobs.size(); ++i) {
      auto& u = batch.jobs[i];
      out[i].uid = u.uid;
      if (!apply(jobs_, u)) {
        out[i].resync = true;
        continue;
      }
      ServedJob& s = jobs_.at(u.uid);
      const controllers::ReconcileInput in{
          s.job, s.pods, s.pod_group ? &*s.pod_group : nullptr, s.tensorboard, batch.now, options_};
      results[i] = controller_for(s.job).reconcile(in);
      out[i].result = &results[i];
      // The status is sent when it changed only; this side keeps the one it returned.
      out[i].with_status = !(results[i].status == model::status_of(s.job));
      if (out[i].with_status) {
        kept[i] = std::move(model::status_of(s.job));
        out[i].kept = &kept[i];
        model::status_of(s.job) = results[i].status;
      }
    }
    return protocol::reconcile_batch_result(out);
  }

  protocol::Role role_;
  std::optional<std::string> policy_name_;
  int max_version_;
  int version_ = 1;
  const controllers::Registry registry_ = controllers::make_default_registry();
  controllers::ControllerOptions options_;
  std::unique_ptr<policies::ElasticPolicy> policy_;
  protocol::JobCache specs_;
  std::map<std::string, ServedJob> jobs_;
  protocol::ObservationDecoder observations_;
};

}  // namespace

int serve(std::FILE* in, std::FILE* out, protocol::Role role,
          const std::optional<std::string>& policy_name, int max_version) {
  Server server(role, policy_name, max_version);
  std::string line;
  while (read_line(in, line)) {
    if (line.empty()) continue;
    std::string id;
    try {
      const protocol::Request req = protocol::Request::parse(line);
      id = req.id_json();
      const auto reply = server.answer(req, id);
      if (!reply) {  // shutdown
        write_line(out, protocol::result_line(id, "null"));
        return 0;
      }
      write_line(out, *reply);
    } catch (const protocol::ProtocolError& e) {
      write_line(out, protocol::error_line(id, id.empty() ? -32700 : -32602, e.what()));
    } catch (const std::exception& e) {
      write_line(out, protocol::error_line(id, -32603, e.what()));
    }
  }
  return 0;
}

}  // namespace t9k::plugins
