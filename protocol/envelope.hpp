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
// A reconcile result's "events": [{"type", "reason", "message"}] (docs/protocol.md §5).
void write_events(Writer& w, const std::vector<controllers::ControllerEvent>& events);
std::vector<controllers::ControllerEvent> decode_events(const Value& j, const Path& path);
void write_tensorboard(Writer& w, const controllers::TensorBoardObservation* tensorboard);
controllers::TensorBoardObservation decode_tensorboard(const Value& j, const Path& path);
// The job (without status) a request carries, its spec decoded once per distinct text.
model::Job cached_job(const Value& job, const Path& path, JobCache& jobs);
// Merging (RFC 7386, version 2's patches and increments): the member to merge, absent to leave
// the field as it is; a null one clears it.
inline Value merge_member(const Value& obj, std::string_view key) { return obj.find(key); }
template <class T, class F>
void merge(const Value& obj, const Path& path, std::string_view key, T& out, F read) {
  const Value x = merge_member(obj, key);
  if (x.present()) out = read(x, child(path, key));
}
// `out`: a std::optional, or another type read and reset as one (model::OptionalTime).
template <class O, class F>
void merge_optional(const Value& obj, const Path& path, std::string_view key, O& out, F read) {
  const Value x = merge_member(obj, key);
  if (!x.present()) return;
  if (x.is_null()) {
    out.reset();
  } else {
    out = read(x, child(path, key));
  }
}
// The queues of an observation; versions 1 and 2 name a demand's priority differently
// ("priority", "jobPriority").
void write_queues(Writer& w, const std::vector<policies::ElasticObservation::Queue>& queues,
                  std::string_view pending_priority);
std::vector<policies::ElasticObservation::Queue> read_queues(const Value& j, const Path& path,
                                                             std::string_view pending_priority);
// key: the duration in µs, or null.
void write_optional_micros(Writer& w, std::string_view key,
                           const std::optional<model::SimDuration>& d);

}  // namespace detail
}  // namespace t9k::protocol
