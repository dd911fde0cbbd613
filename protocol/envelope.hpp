// protocol/ internal: a parsed request or reply, and the pieces both versions' messages share
// (actions, times in microseconds, durations).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "protocol/objects.hpp"

namespace t9k::protocol {

struct Reply::Impl {
  std::string text;
  std::optional<json::Document> doc;  // points into text: both live here, on the heap
  detail::Value result;
};

struct Request::Impl {
  std::string text;
  std::optional<json::Document> doc;
  detail::Value params;
  std::string method;
  std::string id_json;
};

namespace detail {

// What the messages' encoders and decoders read of a parsed reply or request.
struct Access {
  static const Value& result(const Reply& r) { return r.impl_->result; }
  static const Value& params(const Request& r) { return r.impl_->params; }
};

model::SimTime micros_time(const Value& j, const Path& path);
model::SimDuration micros(const Value& j, const Path& path);
// "requeueAfterMicros": 30000000, or "requeueAfter": "30s" (read when the first is absent).
std::optional<model::SimDuration> duration_field(const Value& obj, const Path& path,
                                                 std::string_view micros_key,
                                                 std::string_view text_key);
void write_action(Writer& w, const controllers::Action& action);
controllers::Action decode_action(const Value& j, const Path& path);
void write_tensorboard(Writer& w, const controllers::TensorBoardObservation* tensorboard);
controllers::TensorBoardObservation decode_tensorboard(const Value& j, const Path& path);
// The job (without status) a request carries, its spec decoded once per distinct text.
model::Job cached_job(const Value& job, const Path& path, JobCache& jobs);
// key: the duration in µs, or null.
void write_optional_micros(Writer& w, std::string_view key,
                           const std::optional<model::SimDuration>& d);

}  // namespace detail
}  // namespace t9k::protocol
