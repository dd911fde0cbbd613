// Internal: YAML documents to typed objects, and the checks on typed objects.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/format/detail/reader.hpp"
#include "scenarios/format/manifests.hpp"

namespace t9k::scenarios::detail {

// A parsed YAML stream: documents with the line each starts on, or a syntax error reported.
struct YamlDocument {
  YAML::Node node;
  int line = 1;
  std::size_t bytes = 0;  // the document's share of the text: sizes its work budget
};
std::optional<std::vector<YamlDocument>> parse_yaml(std::string_view text, const std::string& file,
                                                    std::vector<Diagnostic>& out);

// Decodes and validates one object (apiVersion, kind, metadata, spec, status) rooted at `v`.
// Returns nothing when the document has errors; diagnostics go to `r`.
std::optional<Object> decode_object(Report& r, const Val& v);

// The rules on typed values, reported under `base` (the object's path in its file).
void check_object(Report& r, const Object& object, const std::string& base);

// Kubernetes core/v1 field names (v1.24) the loader accepts in pod templates and metadata.
extern const std::vector<std::string_view> kPodSpecFields;
extern const std::vector<std::string_view> kContainerFields;
extern const std::vector<std::string_view> kObjectMetaFields;

// Pod templates of a job, and their paths ("spec.replicaSpecs[1].template").
struct TemplateAt {
  const model::PodTemplateSpec* tpl;
  std::string path;
};
std::vector<TemplateAt> templates_of(const model::Job& job);

}  // namespace t9k::scenarios::detail
