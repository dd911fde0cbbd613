// protocol/ internal: the objects on the wire (objects.cpp).
#pragma once

#include <string>
#include <string_view>

#include "controllers/controller.hpp"
#include "protocol/json_reader.hpp"

namespace t9k::protocol::detail {

model::DeletionReason deletion_reason(const Value& j, const Path& path);
void write_pod(Writer& w, const model::Pod& pod);
model::Pod decode_pod(const Value& j, const Path& path);
void write_pod_group(Writer& w, const model::PodGroup& group);
model::PodGroup decode_pod_group(const Value& j, const Path& path);
void write_status(Writer& w, const model::JobStatus& status);
model::JobStatus decode_status(const Value& j, const Path& path);
void write_options(Writer& w, const controllers::ControllerOptions& options);
controllers::ControllerOptions decode_options(const Value& j, const Path& path);
// A job as scenarios/format writes it (jobs.cpp).
model::Job decode_job(const Value& j, const Path& path);

}  // namespace t9k::protocol::detail
