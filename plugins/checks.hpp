// What a controller plugin's answer must respect before the world sees it (docs/plugins.md §3),
// so that the world's invariants hold whatever it answers: pods of this job only, of its replica
// types and ranks; deletions and restarts of its own pods; phase transitions the job's lifecycle
// allows (§1.1); a PodGroup named after the job. A violation is a PluginError naming the plugin,
// the method, the job, the simulated time and the field.
#pragma once

#include <string>

#include "controllers/controller.hpp"
#include "plugins/process.hpp"

namespace t9k::plugins {

// Throws PluginError with `who` ("plugin x: reconcile of job default/a at t=3 s") before the
// field.
void check_reconcile_result(const controllers::ReconcileInput& input,
                            const controllers::ReconcileResult& result, const std::string& who);

}  // namespace t9k::plugins
