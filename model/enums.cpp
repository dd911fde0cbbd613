#include "model/enums.hpp"

#include <array>

namespace t9k::model {

namespace {
template <class E, std::size_t N>
std::optional<E> lookup(const std::array<std::string_view, N>& names, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == s) return static_cast<E>(i);
  }
  return std::nullopt;
}

constexpr std::array<std::string_view, 3> kJobKind{"GenericJob", "PyTorchTrainingJob",
                                                   "DeepSpeedJob"};
constexpr std::array<std::string_view, 7> kJobPhase{"Pending",   "Running", "Paused", "Resuming",
                                                    "Succeeded", "Failed",  "Unknown"};
constexpr std::array<std::string_view, 6> kCondType{"Initialized", "Running", "ReplicaFailure",
                                                    "Completed",   "Failed",  "Paused"};
constexpr std::array<std::string_view, 3> kCondStatus{"True", "False", "Unknown"};
constexpr std::array<std::string_view, 4> kRestart{"Always", "OnFailure", "Never", "ExitCode"};
constexpr std::array<std::string_view, 3> kCleanUp{"None", "Unfinished", "All"};
constexpr std::array<std::string_view, 7> kReplicaPhase{
    "Creating", "Pending", "Running", "Succeeded", "Failed", "Unknown", "Deleted"};
constexpr std::array<std::string_view, 5> kPodPhase{"Pending", "Running", "Succeeded", "Failed",
                                                    "Unknown"};
constexpr std::array<std::string_view, 3> kAutotune{"none", "run", "tune"};
constexpr std::array<std::string_view, 4> kSelectorOp{"In", "NotIn", "Exists", "DoesNotExist"};
constexpr std::array<std::string_view, 3> kRdzv{"c10d", "etcd", "etcd-v2"};
}  // namespace

#define T9K_ENUM_STRINGS(Type, table)                                               \
  std::string_view to_string(Type v) { return table[static_cast<std::size_t>(v)]; } \
  template <>                                                                       \
  std::optional<Type> parse_enum<Type>(std::string_view s) {                        \
    return lookup<Type>(table, s);                                                  \
  }                                                                                 \
  template <>                                                                       \
  std::span<const std::string_view> enum_names<Type>() {                            \
    return {table.data(), table.size()};                                            \
  }

std::string_view to_string(JobKind v) {
  return v == JobKind::Plugin ? "Plugin" : kJobKind[static_cast<std::size_t>(v)];
}
template <>
std::optional<JobKind> parse_enum<JobKind>(std::string_view s) {
  return lookup<JobKind>(kJobKind, s);
}
template <>
std::span<const std::string_view> enum_names<JobKind>() {
  return {kJobKind.data(), kJobKind.size()};
}
T9K_ENUM_STRINGS(JobPhase, kJobPhase)
T9K_ENUM_STRINGS(JobConditionType, kCondType)
T9K_ENUM_STRINGS(ConditionStatus, kCondStatus)
T9K_ENUM_STRINGS(RestartPolicyType, kRestart)
T9K_ENUM_STRINGS(CleanUpPolicy, kCleanUp)
T9K_ENUM_STRINGS(ReplicaPhase, kReplicaPhase)
T9K_ENUM_STRINGS(PodPhase, kPodPhase)
T9K_ENUM_STRINGS(AutotuneType, kAutotune)
T9K_ENUM_STRINGS(SelectorOperator, kSelectorOp)
T9K_ENUM_STRINGS(RdzvBackend, kRdzv)

#undef T9K_ENUM_STRINGS

bool is_terminal(JobPhase p) { return p == JobPhase::Succeeded || p == JobPhase::Failed; }

}  // namespace t9k::model
