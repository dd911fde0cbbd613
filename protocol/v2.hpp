// The plugin protocol's version 2 (docs/protocol-v2.md): everything due at one simulated instant
// in one message each way, and after a job is first sent only what changed. The objects are
// version 1's (protocol.hpp); this header adds the batched `reconcile`, the incremental
// `decide` and what either side keeps to read them. No JSON type appears here either.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/protocol.hpp"

namespace t9k::protocol {

inline constexpr std::string_view kProtocolVersion2 = "2";
// Every version this simulator speaks, oldest first ("1", "2").
std::span<const std::string_view> protocol_versions();

// ---- reconcile: what the simulator sends and reads ----

// One job of a batch (§2): the job's uid, and what changed since it was last sent; every member
// with `resync`. Pointers refer to the caller's objects for the duration of the encoding.
struct JobUpdate {
  std::string_view uid;
  bool resync = false;
  const model::Job* job = nullptr;  // metadata and spec (its status is not sent); null: unchanged
  bool has_status = false;          // send `status`: *status, or null when status is null
  const model::JobStatus* status = nullptr;
  std::vector<const model::Pod*> pods;  // new or changed (every pod with resync)
  // Pods changed in observed state only, as merge patches: (the pod as last sent, as it is now).
  std::vector<std::pair<model::Pod, const model::Pod*>> pod_patches;
  std::vector<std::string> removed_pods;  // uids
  bool has_pod_group = false;             // send `podGroup`: *pod_group, or null
  const model::PodGroup* pod_group = nullptr;
  bool has_tensorboard = false;  // send `tensorBoard`: *tensorboard, or null
  const controllers::TensorBoardObservation* tensorboard = nullptr;
};
std::string reconcile_batch_params(model::SimTime now, std::span<const JobUpdate> jobs,
                                   std::span<const std::string> forget);
// Whether `after` differs from `before` in observed state only (then it travels as a patch).
bool observed_change_only(const model::Pod& before, const model::Pod& after);

// A plugin's answer for one job of a batch.
struct JobAnswer {
  bool resync = false;  // it asks for the job whole; nothing else was read
  std::vector<controllers::Action> actions;
  std::optional<model::JobStatus> status;  // absent: unchanged
  std::optional<model::SimDuration> requeue_after;
  std::vector<controllers::ControllerEvent> events;
};
// How many answers result.results holds (throws ProtocolError when it is not an array).
std::size_t batch_answers(const Reply& reply);
// The i-th answer, which must be for `uid`; errors name `result.results[i]...`. `kept`: the
// status the plugin keeps for the job, which a `statusPatch` applies to.
JobAnswer decode_job_answer(const Reply& reply, std::size_t i, std::string_view uid,
                            const model::JobStatus& kept, bool plugin_kind = false);

// ---- reconcile: what a server reads and answers ----

// A pod's merge patch as received: applied to the pod of that uid the server keeps.
struct PodPatchIn {
  std::string uid;
  std::string json;
  std::string path;  // "params.jobs[0].podPatches[1]", for errors
};
// Throws ProtocolError naming the patch's fields by their path.
void apply_pod_patch(const PodPatchIn& patch, model::Pod& pod);

struct JobUpdateIn {
  std::string uid;
  bool resync = false;
  std::optional<model::Job> job;  // without status
  bool has_status = false;
  std::optional<model::JobStatus> status;
  std::vector<model::Pod> pods;
  std::vector<PodPatchIn> pod_patches;
  std::vector<std::string> removed_pods;
  bool has_pod_group = false;
  std::optional<model::PodGroup> pod_group;
  bool has_tensorboard = false;
  std::optional<controllers::TensorBoardObservation> tensorboard;
};
struct ReconcileBatch {
  model::SimTime now{};
  std::vector<JobUpdateIn> jobs;
  std::vector<std::string> forget;
};
// `specs` keeps decoded specs by their text, as decode_reconcile does.
ReconcileBatch decode_reconcile_batch(const Request& request, JobCache& specs);

struct JobAnswerOut {
  std::string_view uid;
  bool resync = false;
  const controllers::ReconcileResult* result = nullptr;  // unless resync
  bool with_status = true;  // false: the status is the one the simulator keeps
  // With a status: the one both sides keep, to send a statusPatch against; null: the whole one.
  const model::JobStatus* kept = nullptr;
};
std::string reconcile_batch_result(std::span<const JobAnswerOut> answers);

// ---- decide ----

// Encodes one plugin's observations: whole the first time (and after resync()), then the entries
// of `waiting` and `jobs` that changed, with only their changed fields (§3).
class ObservationEncoder {
 public:
  std::string params(const policies::ElasticObservation& observation);
  void resync() { sent_ = false; }

 private:
  bool sent_ = false;
  std::map<model::JobId, policies::ElasticObservation::Waiting> waiting_;
  std::map<model::JobId, policies::ElasticObservation::Job> jobs_;
};

struct DecideAnswer {
  bool resync = false;  // the plugin asks for the whole observation; nothing else was read
  policies::ElasticDecisions decisions;
};
DecideAnswer decode_decide_answer(const Reply& reply,
                                  const policies::ElasticObservation& observation);

// The other side: keeps the waiting and elastic jobs and applies each request to them.
class ObservationDecoder {
 public:
  policies::ElasticObservation apply(const Request& request);

 private:
  std::map<model::JobId, policies::ElasticObservation::Waiting> waiting_;
  std::map<model::JobId, policies::ElasticObservation::Job> jobs_;
};

}  // namespace t9k::protocol
