// Kubernetes-style manifests of the simulated APIs: the three job kinds of
// batch.tensorstack.dev/v1beta1 and Queue / PodGroup of scheduler.tensorstack.dev/v1beta1.
// A manifest file holds one or more objects separated by "---", as users keep them next to
// `kubectl apply`. Loading parses, defaults and validates; no YAML or JSON type leaves here.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/jobs.hpp"
#include "model/scheduling.hpp"
#include "scenarios/format/diagnostics.hpp"

namespace t9k::scenarios {

// PluginJob: an object of a kind only a controller plugin knows (any apiVersion outside T9k's
// groups), its spec kept as it is; a scenario's job of that kind needs a plugin serving it.
using Object = std::variant<model::GenericJob, model::PyTorchTrainingJob, model::DeepSpeedJob,
                            model::Queue, model::PodGroup, model::PluginJob>;

// "GenericJob", "Queue", ..., or a PluginJob's own kind
std::string_view kind_name(const Object& object);
const model::ObjectMeta& metadata_of(const Object& object);
// The job inside an Object, when it is one.
bool is_job(const Object& object);
model::Job to_job(const Object& object);  // precondition: is_job(object)
Object to_object(const model::Job& job);

// One object with where it came from, so later stages can point back at the file.
struct LoadedObject {
  Object object;
  std::string file;
  int document = 0;  // index of the YAML document in the file
  int line = 0;      // 1-based line where the document starts (a List item: where the item starts)
  std::string path;  // "" for a document, "items[3]" for an item of a List
};

// Warnings about manifests that will waste capacity in ways users do not expect (what `t9ksim
// validate` adds to a manifest file's findings, docs/scenario-format.md "Lint"): a multi-worker
// DeepSpeedJob with cleanUpPolicy None and a container without resource requests under the T9k
// scheduler (an elastic PyTorchTrainingJob without torchrun is a warning of the loader itself).
std::vector<Diagnostic> lint_objects(const std::vector<LoadedObject>& objects);

struct ManifestSet {
  std::vector<LoadedObject> objects;    // valid objects only, in file order
  std::vector<Diagnostic> diagnostics;  // errors and warnings of every document
  bool ok() const { return !has_errors(diagnostics); }
};

// Reads a YAML or JSON file of one or more objects. Every document is decoded and validated;
// a document with errors contributes diagnostics and no object. Never throws for bad input.
ManifestSet load_manifests(const std::string& path);

// The same from text; `file` names the source in diagnostics.
ManifestSet parse_manifests(std::string_view text, const std::string& file);

// Validates a typed object (objects built in code, or generated ones): the rules the loader
// applies after decoding. Paths are relative to the object root; `file` is copied into each
// diagnostic.
std::vector<Diagnostic> validate_object(const Object& object, const std::string& file = "");

}  // namespace t9k::scenarios
