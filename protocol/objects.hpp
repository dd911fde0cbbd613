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
// The JSON merge patch (RFC 7386) that turns `before` into `after` (status.cpp), and applying one.
void write_status_patch(Writer& w, const model::JobStatus& before, const model::JobStatus& after);
void apply_status_patch(const Value& patch, const Path& path, model::JobStatus& status);
// A pod that changed in observed state only (phase, node, times, exit code, GPU, deletion) is
// sent as a merge patch of those fields (docs/protocol-v2.md §2); objects.cpp.
bool observed_change_only(const model::Pod& before, const model::Pod& after);
void write_pod_patch(Writer& w, const model::Pod& before, const model::Pod& after);
void apply_pod_patch(const Value& patch, const Path& path, model::Pod& pod);
void write_options(Writer& w, const controllers::ControllerOptions& options);
controllers::ControllerOptions decode_options(const Value& j, const Path& path);
// A job as scenarios/format writes it (jobs.cpp), and a pod template of one.
model::Job decode_job(const Value& j, const Path& path);
model::PodTemplateSpec pod_template(const Value& j, const Path& path);
// A kind a controller plugin declares at initialize (plugin_kinds.cpp).
model::PluginKindRule decode_kind_rule(const Value& j, const Path& path);
void write_kind_rule(Writer& w, const model::PluginKindRule& rule);
// A status of such a kind as the plugin wrote it (an object; kept as its text).
model::JobStatus decode_plugin_status(const Value& j, const Path& path);

}  // namespace t9k::protocol::detail
