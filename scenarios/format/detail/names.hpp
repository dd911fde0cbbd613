// Internal: how the scenario format spells its enums, for to_string and the decoders.
#pragma once

#include <string_view>

namespace t9k::scenarios::detail {

inline constexpr std::string_view kOperationNames[] = {
    "pauseJob",       "resumeJob",    "setExpectedReplicas",
    "closeQueue",     "openQueue",    "drainNode",
    "cordonNode",     "uncordonNode", "addNodePool",
    "removeNodePool", "failPod",      "deletePod",
    "failNode",       "repairNode",   "failGpu",
    "failSwitch",     "setQueue",     "setJobPriority"};
inline constexpr std::string_view kSchedulerNames[] = {"t9k", "default"};
inline constexpr std::string_view kTraceFormats[] = {"philly", "alibaba-openb", "csv",
                                                     "k8s-export"};
inline constexpr std::string_view kScalingModels[] = {"linear", "amdahl", "fixed", "table"};
// faults-and-validation §1.6, plus "none" and "custom".
inline constexpr std::string_view kFaultProfiles[] = {"none", "h100-frontier", "a100-research",
                                                      "a100-optimistic", "custom"};

}  // namespace t9k::scenarios::detail
