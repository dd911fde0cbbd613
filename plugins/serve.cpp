#include "plugins/serve.hpp"

#include <memory>

#include <fmt/format.h>

#include "policies/elastic.hpp"

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

}  // namespace

int serve(std::FILE* in, std::FILE* out, protocol::Role role,
          const std::optional<std::string>& policy_name) {
  const controllers::Registry registry = controllers::make_default_registry();
  std::unique_ptr<policies::ElasticPolicy> policy;
  protocol::JobCache jobs;
  std::string line;
  while (read_line(in, line)) {
    if (line.empty()) continue;
    std::string id;
    try {
      const protocol::Request req = protocol::Request::parse(line);
      id = req.id_json();
      const std::string& method = req.method();
      if (method == "initialize") {
        const auto init = protocol::decode_initialize(req);
        if (init.role != role) {
          write_line(out, protocol::error_line(id, -32602,
                                               fmt::format("this server is a {}, not a {}",
                                                           protocol::to_string(role),
                                                           protocol::to_string(init.role))));
          continue;
        }
        protocol::Hello hello{std::string(protocol::kProtocolVersion), "t9ksim-builtin", true};
        if (role == protocol::Role::ElasticPolicy) {
          const std::string name = policy_name.value_or(init.policy_settings.policy);
          policy = policies::make_elastic_policy(name, init.policy_settings.options);
          if (!policy) {
            write_line(
                out, protocol::error_line(
                         id, -32602, fmt::format("no built-in elastic policy named \"{}\"", name)));
            continue;
          }
          hello.name = "t9ksim-builtin-" + name;
          hello.decides = policy->decides();
        } else {
          hello.name = "t9ksim-builtin-controllers";
        }
        write_line(out, protocol::result_line(id, protocol::hello_result(hello)));
      } else if (method == "reconcile" && role == protocol::Role::Controller) {
        const auto input = protocol::decode_reconcile(req, jobs);
        const auto kind = model::to_string(model::kind_of(input.job));
        const controllers::Controller* c = registry.find(model::kBatchApiVersion, kind);
        if (!c)
          throw protocol::ProtocolError(
              fmt::format("params.job.kind: no built-in controller for {}", kind));
        write_line(
            out, protocol::result_line(id, protocol::reconcile_result(c->reconcile(input.view()))));
      } else if (method == "decide" && role == protocol::Role::ElasticPolicy) {
        if (!policy) throw protocol::ProtocolError("decide before initialize");
        const auto o = protocol::decode_decide(req);
        write_line(out, protocol::result_line(id, protocol::decide_result(policy->decide(o), o)));
      } else if (method == "shutdown") {
        write_line(out, protocol::result_line(id, "null"));
        return 0;
      } else {
        write_line(out, protocol::error_line(
                            id, -32601, fmt::format("method \"{}\" is not served here", method)));
      }
    } catch (const protocol::ProtocolError& e) {
      write_line(out, protocol::error_line(id, id.empty() ? -32700 : -32602, e.what()));
    } catch (const std::exception& e) {
      write_line(out, protocol::error_line(id, -32603, e.what()));
    }
  }
  return 0;
}

}  // namespace t9k::plugins
