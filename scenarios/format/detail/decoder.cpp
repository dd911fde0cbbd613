// What every section uses: manifests named inline or by path, files the scenario names, and queries
// on the scenario decoded so far.
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>
#include <filesystem>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

namespace t9k::scenarios::detail {

namespace {

// The replica types of a job and how many ranks each may have (elastic: up to maxReplicas).
std::vector<std::pair<std::string, std::int32_t>> replica_ranks(const m::Job& job) {
  std::vector<std::pair<std::string, std::int32_t>> out;
  std::visit(
      [&](const auto& j) {
        using T = std::decay_t<decltype(j)>;
        if constexpr (std::is_same_v<T, m::DeepSpeedJob>) {
          const bool elastic = j.spec.elastic && j.spec.elastic->enabled;
          out.emplace_back("worker",
                           elastic ? std::max(j.spec.elastic->max_replicas, j.spec.worker.replicas)
                                   : j.spec.worker.replicas);
        } else {
          std::int32_t elastic_max = 0;
          if constexpr (std::is_same_v<T, m::PyTorchTrainingJob>) {
            if (j.spec.elastic && j.spec.elastic->enabled)
              elastic_max = j.spec.elastic->max_replicas;
          }
          for (const auto& r : j.spec.replica_specs)
            out.emplace_back(r.type, std::max(r.replicas, elastic_max));
        }
      },
      job);
  return out;
}

}  // namespace

ReplicaTypeCheck check_replica_type(const m::Job& job, std::string_view job_name,
                                    std::string_view type) {
  if (m::kind_of(job) == m::JobKind::Plugin) return {};
  const auto types = replica_ranks(job);
  const auto it =
      std::find_if(types.begin(), types.end(), [&](const auto& t) { return t.first == type; });
  if (it != types.end()) return {it->second, {}};
  std::vector<std::string> names;
  for (const auto& t : types) names.push_back(t.first);
  return {std::nullopt,
          fmt::format("found \"{}\", which is not a replica type of job {}; allowed: {}", type,
                      job_name, fmt::join(names, ", "))};
}

std::string queue_names(const Scenario& sc) {
  std::string s;
  for (const auto& q : sc.scheduler.queues) s += (s.empty() ? "" : ", ") + q.metadata.name.str();
  if (std::none_of(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                   [](const m::Queue& x) { return x.metadata.name == m::kDefaultQueue; })) {
    s += (s.empty() ? "" : ", ") + std::string(m::kDefaultQueue) + " (implicit)";
  }
  return s;
}

namespace {
// How operations and expectations name a job: its name in the default namespace (as jobs.csv
// and events.jsonl print it), namespace/name in any other (the simulator's store resolves both).
// Explicit jobs always have a namespace here (decode_workload.cpp gives them the default).
std::string job_reference(const Scenario& sc, const JobSubmission& j) {
  const auto& meta = m::metadata_of(j.job);
  return meta.namespace_ == sc.default_namespace ? meta.name.str() : m::object_key(meta);
}
}  // namespace

std::string job_names(const Scenario& sc) {
  std::string s;
  for (const auto& j : sc.workload.jobs) s += (s.empty() ? "" : ", ") + job_reference(sc, j);
  return s.empty() ? "none defined" : s;
}

const JobSubmission* find_job(const Scenario& sc, const std::string& name) {
  const auto key =
      name.find('/') == std::string::npos ? m::object_key(sc.default_namespace, name) : name;
  for (const auto& j : sc.workload.jobs) {
    if (m::is_key_of(m::metadata_of(j.job), key)) return &j;
  }
  return nullptr;
}

// `manifest:` inline or `path:` to a file; returns the objects with their sources. With
// `only`, just the object of a file with that name (explicit jobs from t9ksim generate).
std::vector<std::pair<Object, std::string>> ScenarioDecoder::sources(const MapReader& mr,
                                                                     const Val& entry,
                                                                     const std::string* only) {
  std::vector<std::pair<Object, std::string>> out;
  const Val inline_v = mr.get("manifest");
  const Val path_v = mr.get("path");
  if (inline_v.present() == path_v.present()) {
    r_.error(
        entry.mark, entry.path,
        fmt::format("found {}; allowed: exactly one of manifest (an inline object) or path "
                    "(a manifest file)",
                    inline_v.present() ? "both manifest and path" : "neither manifest nor path"));
    remember_broken(inline_v.node);
    return out;
  }
  if (inline_v.present()) {
    if (auto obj = decode_object(r_, inline_v)) {
      out.emplace_back(std::move(*obj), r_.file());
    } else {
      remember_broken(inline_v.node);
    }
    return out;
  }
  const auto rel = read_string(r_, path_v);
  if (!rel) return out;
  if (!options_.allow_file_references) {
    r_.error(path_v.mark, path_v.path,
             fmt::format("found path \"{}\"; allowed: inline manifests only (file references are "
                         "off for this input)",
                         *rel));
    return out;
  }
  const std::filesystem::path p = std::filesystem::path(options_.base_dir) / *rel;
  files_.insert(p.string());
  // A file named by many entries (t9ksim generate writes one per generator) is read once.
  if (const auto cached = file_cache_.find(p.string()); cached != file_cache_.end()) {
    if (!cached->second) {
      r_.error(path_v.mark, path_v.path,
               fmt::format("found errors in \"{}\" (reported above)", *rel));
      return out;
    }
    for (const auto& o : *cached->second) {
      if (!only || metadata_of(o.first).name == *only) out.push_back(o);
    }
    return out;
  }
  auto& cache = file_cache_[p.string()];
  std::vector<Diagnostic> diags;
  std::string text;
  if (!read_text_file(p.string(), text, diags)) {
    r_.error(path_v.mark, path_v.path,
             fmt::format("found \"{}\", which cannot be read ({}); allowed: a manifest file, "
                         "relative to the scenario's folder",
                         *rel, diags.front().message));
    return out;
  }
  const auto docs = parse_yaml(text, p.string(), diags);
  std::vector<LoadedObject> objects;
  if (docs) decode_manifest_documents(*docs, p.string(), "", objects, diags);
  const bool bad = has_errors(diags);
  for (auto& d : diags) out_.push_back(std::move(d));
  if (bad) {
    r_.error(path_v.mark, path_v.path,
             fmt::format("found errors in \"{}\" (reported above)", *rel));
    if (docs) {
      for (const auto& d : *docs) remember_broken(d.node);
    }
    return {};
  }
  if (objects.empty()) {
    r_.error(path_v.mark, path_v.path,
             fmt::format("found no objects in \"{}\"; allowed: a manifest file "
                         "with at least one object",
                         *rel));
  }
  cache.emplace();
  for (auto& o : objects) {
    cache->emplace_back(std::move(o.object),
                        objects.size() > 1 ? fmt::format("{}#{}", *rel, o.document) : *rel);
  }
  for (const auto& o : *cache) {
    if (!only || metadata_of(o.first).name == *only) out.push_back(o);
  }
  return out;
}

// Names of objects that failed to load, so references to them are not reported again.
void ScenarioDecoder::remember_broken(const YAML::Node& doc) {
  // operator[] on a missing key yields an invalid node whose type queries throw; check
  // IsDefined() before anything else.
  if (!doc.IsDefined() || !doc.IsMap()) return;
  const YAML::Node meta = doc["metadata"];
  if (!meta.IsDefined() || !meta.IsMap()) return;
  const YAML::Node name = meta["name"];
  if (name.IsDefined() && name.IsScalar()) broken_.insert(name.Scalar());
}

// A file the scenario names, relative to its folder: the resolved path, kept as an input of the
// run; nullopt, with the error at the field, when file references are off or it is not a file.
std::optional<std::string> ScenarioDecoder::input_file(const Val& v, const std::string& rel,
                                                       std::string_view allowed) {
  if (!options_.allow_file_references) {
    r_.error(v.mark, v.path,
             fmt::format("found path \"{}\"; allowed: no file references for this input", rel));
    return std::nullopt;
  }
  const auto p = std::filesystem::path(options_.base_dir) / rel;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) {
    r_.error(
        v.mark, v.path,
        fmt::format(
            "found \"{}\", which is not a file; allowed: {}, relative to the scenario's folder",
            rel, allowed));
    return std::nullopt;
  }
  files_.insert(p.string());
  return p.string();
}

}  // namespace t9k::scenarios::detail
