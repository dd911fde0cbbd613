// Enumerations of the T9k and Kubernetes APIs, spelled as Kubernetes spells them, with exact
// string conversions. parse_* returns std::nullopt for an unknown spelling; callers report it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace t9k::model {

// Plugin: a kind only a controller plugin knows (model::PluginJob); its own name is the job's.
// It is not parsed from text: parse_enum and enum_names know the three T9k kinds only.
enum class JobKind : std::uint8_t { GenericJob, PyTorchTrainingJob, DeepSpeedJob, Plugin };

// spec §1.1
enum class JobPhase { Pending, Running, Paused, Resuming, Succeeded, Failed, Unknown };

// spec §1.2 (Paused is documented for all but DeepSpeedJob; we give it to all, §1.1 CONFLICT)
enum class JobConditionType { Initialized, Running, ReplicaFailure, Completed, Failed, Paused };

enum class ConditionStatus { True, False, Unknown };

// spec §2.1: PyTorch/DeepSpeed take all four; GenericJob only Always/OnFailure/Never.
enum class RestartPolicyType { Always, OnFailure, Never, ExitCode };

// spec §6.2
enum class CleanUpPolicy { None, Unfinished, All };

// Replica (pod) phases as the job status reports them: the 5 Kubernetes pod phases plus
// Creating and Deleted (spec §1.3).
enum class ReplicaPhase { Creating, Pending, Running, Succeeded, Failed, Unknown, Deleted };

// Kubernetes pod phases.
enum class PodPhase : std::uint8_t { Pending, Running, Succeeded, Failed, Unknown };

// DeepSpeed Config.autotune.
enum class AutotuneType { none, run, tune };

// LabelSelectorRequirement.operator.
enum class SelectorOperator { In, NotIn, Exists, DoesNotExist };

// TorchrunConfig.rdzvBackend.
enum class RdzvBackend { c10d, etcd, etcd_v2 };

std::string_view to_string(JobKind v);
std::string_view to_string(JobPhase v);
std::string_view to_string(JobConditionType v);
std::string_view to_string(ConditionStatus v);
std::string_view to_string(RestartPolicyType v);
std::string_view to_string(CleanUpPolicy v);
std::string_view to_string(ReplicaPhase v);
std::string_view to_string(PodPhase v);
std::string_view to_string(AutotuneType v);
std::string_view to_string(SelectorOperator v);
std::string_view to_string(RdzvBackend v);  // "etcd-v2" for etcd_v2

template <class E>
std::optional<E> parse_enum(std::string_view s);

// All spellings of an enum, in declaration order, for "allowed: ..." messages.
template <class E>
std::span<const std::string_view> enum_names();

bool is_terminal(JobPhase p);

}  // namespace t9k::model
