// Actions, times in microseconds and durations on the wire (protocol/ internal): shared by both
// versions' reconcile and decide.
#include <fmt/format.h>

#include "protocol/envelope.hpp"

namespace t9k::protocol::detail {

namespace m = t9k::model;

m::SimTime micros_time(const Value& j, const Path& path) {
  const std::int64_t us = int64(j, path);
  if (us < 0) bad(path, "a time >= 0 (microseconds)", j);
  return m::SimTime{m::SimDuration{us}};
}

m::SimDuration micros(const Value& j, const Path& path) {
  const std::int64_t us = int64(j, path);
  if (us < 0) bad(path, "a duration >= 0 (microseconds)", j);
  return m::SimDuration{us};
}

// "requeueAfterMicros": 30000000, or "requeueAfter": "30s".
std::optional<m::SimDuration> duration_field(const Value& obj, const Path& path,
                                             std::string_view micros_key,
                                             std::string_view text_key) {
  if (const Member x = member(obj, micros_key)) return micros(*x, child(path, micros_key));
  if (const Member x = member(obj, text_key)) {
    const std::string s = string(*x, child(path, text_key));
    try {
      return kernel::parse_duration(s);
    } catch (const std::exception& e) {
      bad(child(path, text_key), e.what());
    }
  }
  return std::nullopt;
}

void write_action(Writer& w, const controllers::Action& action) {
  std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a)>;
        w.begin_object();
        if constexpr (std::is_same_v<T, controllers::CreatePod>) {
          write_pod(w.key("type").string("CreatePod").key("pod"), a.pod);
        } else if constexpr (std::is_same_v<T, controllers::DeletePod>) {
          w.key("type")
              .string("DeletePod")
              .key("name")
              .string(a.name)
              .key("reason")
              .string(m::to_string(a.reason));
        } else if constexpr (std::is_same_v<T, controllers::CreatePodGroup>) {
          write_pod_group(w.key("type").string("CreatePodGroup").key("podGroup"), a.pod_group);
        } else if constexpr (std::is_same_v<T, controllers::UpdatePodGroup>) {
          write_pod_group(w.key("type").string("UpdatePodGroup").key("podGroup"), a.pod_group);
        } else if constexpr (std::is_same_v<T, controllers::CreateTensorBoard>) {
          w.key("type")
              .string("CreateTensorBoard")
              .key("name")
              .string(a.name)
              .key("namespace")
              .string(a.namespace_);
          w.key("spec").begin_object();
          if (!a.spec.image.empty()) w.key("image").string(a.spec.image);
          if (!a.spec.training_log_filesets.empty())
            write_strings(w.key("trainingLogFilesets"), a.spec.training_log_filesets);
          w.end_object();
          const auto& o = a.owner;
          w.key("owner")
              .begin_object()
              .key("apiVersion")
              .string(o.api_version)
              .key("kind")
              .string(o.kind);
          w.key("name")
              .string(o.name)
              .key("uid")
              .string(o.uid)
              .key("controller")
              .boolean(o.controller)
              .end_object();
        } else {
          w.key("type").string("RestartTraining");
          write_strings(w.key("pods"), a.pods);
          w.key("replicas")
              .integer(a.replicas)
              .key("worldSize")
              .integer(a.world_size)
              .key("reason")
              .string(a.reason);
        }
        w.end_object();
      },
      action);
}

void write_events(Writer& w, const std::vector<controllers::ControllerEvent>& events) {
  w.begin_array();
  for (const auto& e : events) {
    w.begin_object().key("type").string(e.type).key("reason").string(e.reason);
    w.key("message").string(e.message).end_object();
  }
  w.end_array();
}

std::vector<controllers::ControllerEvent> decode_events(const Value& j, const Path& path) {
  std::vector<controllers::ControllerEvent> out;
  std::size_t i = 0;
  for (const auto& e : array(j, path).items()) {
    const Path ep = item(path, i++);
    object(e, ep);
    out.push_back({opt_string(e, ep, "type", "Normal"), opt_string(e, ep, "reason"),
                   opt_string(e, ep, "message")});
  }
  return out;
}

controllers::Action decode_action(const Value& j, const Path& path) {
  object(j, path);
  const Value type_v = need(j, path, "type");
  const std::string type = string(type_v, child(path, "type"));
  if (type == "CreatePod")
    return controllers::CreatePod{detail::decode_pod(need(j, path, "pod"), child(path, "pod"))};
  if (type == "DeletePod") {
    controllers::DeletePod d;
    d.name = string(need(j, path, "name"), child(path, "name"));
    if (const Member x = member(j, "reason")) d.reason = deletion_reason(*x, child(path, "reason"));
    return d;
  }
  if (type == "CreatePodGroup") {
    return controllers::CreatePodGroup{
        detail::decode_pod_group(need(j, path, "podGroup"), child(path, "podGroup"))};
  }
  if (type == "UpdatePodGroup") {
    return controllers::UpdatePodGroup{
        detail::decode_pod_group(need(j, path, "podGroup"), child(path, "podGroup"))};
  }
  if (type == "CreateTensorBoard") {
    controllers::CreateTensorBoard t;
    t.name = string(need(j, path, "name"), child(path, "name"));
    t.namespace_ = opt_string(j, path, "namespace");
    if (const Member s = member(j, "spec")) {
      const Path sp = child(path, "spec");
      t.spec.image = opt_string(object(*s, sp), sp, "image");
      if (const Member f = member(*s, "trainingLogFilesets"))
        t.spec.training_log_filesets = strings(*f, child(sp, "trainingLogFilesets"));
    }
    if (const Member o = member(j, "owner")) {
      const Path op = child(path, "owner");
      object(*o, op);
      t.owner.api_version = opt_string(*o, op, "apiVersion");
      t.owner.kind = opt_string(*o, op, "kind");
      t.owner.name = opt_string(*o, op, "name");
      t.owner.uid = opt_string(*o, op, "uid");
      if (const Member c = member(*o, "controller"))
        t.owner.controller = boolean(*c, child(op, "controller"));
    }
    return t;
  }
  if (type == "RestartTraining") {
    controllers::RestartTraining r;
    if (const Member x = member(j, "pods")) r.pods = strings(*x, child(path, "pods"));
    r.replicas = int32(need(j, path, "replicas"), child(path, "replicas"));
    if (const Member x = member(j, "worldSize")) r.world_size = int32(*x, child(path, "worldSize"));
    r.reason = opt_string(j, path, "reason");
    return r;
  }
  bad(child(path, "type"),
      "CreatePod, DeletePod, CreatePodGroup, UpdatePodGroup, CreateTensorBoard or RestartTraining",
      type_v);
}

void write_optional_micros(Writer& w, std::string_view key,
                           const std::optional<m::SimDuration>& d) {
  if (d) {
    w.key(key).integer(d->count());
  } else {
    w.key(key).null();
  }
}

}  // namespace t9k::protocol::detail
