#include "scenarios/format/manifests.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include "scenarios/format/detail/decode.hpp"
#include "scenarios/format/detail/files.hpp"

namespace t9k::scenarios {

std::string_view kind_name(const Object& object) {
  if (const auto* p = std::get_if<model::PluginJob>(&object)) return p->kind;
  static constexpr std::string_view kNames[] = {"GenericJob", "PyTorchTrainingJob", "DeepSpeedJob",
                                                "Queue", "PodGroup"};
  return kNames[object.index()];
}

const model::ObjectMeta& metadata_of(const Object& object) {
  return std::visit([](const auto& o) -> const model::ObjectMeta& { return o.metadata; }, object);
}

bool is_job(const Object& object) {
  return object.index() <= 2 || std::holds_alternative<model::PluginJob>(object);
}

model::Job to_job(const Object& object) {
  switch (object.index()) {
    case 0:
      return std::get<model::GenericJob>(object);
    case 1:
      return std::get<model::PyTorchTrainingJob>(object);
    case 5:
      return std::get<model::PluginJob>(object);
    default:
      return std::get<model::DeepSpeedJob>(object);
  }
}

Object to_object(const model::Job& job) {
  return std::visit([](const auto& j) -> Object { return j; }, job);
}

namespace detail {

namespace {

// yaml-cpp 0.7 never finishes LoadAll() on some invalid text (found by fuzz/loader_fuzz): a ','
// where no value can start ("{},", ",x", "- 1\n,") leaves its parser returning an empty
// document forever without consuming input, and LoadAll collects them until memory runs out.
// A first pass drives the same parser with a handler that builds nothing and stops once there
// are more documents than the text could hold (each needs a few bytes); LoadAll runs only on
// text that passed.
class CountingHandler : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { last = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  YAML::Mark last = YAML::Mark::null_mark();
};

// False (with the position of the stuck document) when the parser stops making progress.
bool parser_terminates(const std::string& text, YAML::Mark& where) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  CountingHandler handler;
  const std::size_t max_documents = text.size() / 3 + 2;  // "---\n" per document, at least
  for (std::size_t docs = 0; parser.HandleNextDocument(handler); ++docs) {
    if (docs > max_documents) {
      where = handler.last;
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::vector<YamlDocument>> parse_yaml(std::string_view text, const std::string& file,
                                                    std::vector<Diagnostic>& out) {
  try {
    std::string copy(text);
    // YAML 1.2 allows a lone CR as a line break (old Mac files); yaml-cpp knows LF and CRLF only.
    // Same length, so positions still match the file.
    for (std::size_t i = 0; i < copy.size(); ++i) {
      if (copy[i] == '\r' && (i + 1 == copy.size() || copy[i + 1] != '\n')) copy[i] = '\n';
    }
    // No control character but tab and line breaks (YAML 1.2 "c-printable"); yaml-cpp would
    // misreport a NUL as an escape error, and let others through.
    for (std::size_t i = 0, line = 1, col = 1; i < copy.size(); ++i, ++col) {
      const auto c = static_cast<unsigned char>(copy[i]);
      if (c == '\n') {
        ++line;
        col = 0;
        continue;
      }
      if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
        Diagnostic d;
        d.file = file;
        d.line = static_cast<int>(line);
        d.column = static_cast<int>(col);
        d.message = fmt::format(
            "found a control character (byte 0x{:02x}{}); allowed: text without control "
            "characters but tab and line breaks (YAML 1.2)",
            c, c == 0 ? ", NUL" : "");
        out.push_back(std::move(d));
        return std::nullopt;
      }
    }
    YAML::Mark stuck = YAML::Mark::null_mark();
    if (!parser_terminates(copy, stuck)) {
      Diagnostic d;
      d.file = file;
      if (!stuck.is_null()) {
        d.line = stuck.line + 1;
        d.column = stuck.column + 1;
      }
      d.message =
          "found invalid YAML: a ',' where no value can start (outside [] and {}); "
          "allowed: a YAML or JSON document";
      out.push_back(std::move(d));
      return std::nullopt;
    }
    std::vector<YamlDocument> docs;
    std::vector<std::size_t> starts;
    for (YAML::Node& n : YAML::LoadAll(copy)) {
      const YAML::Mark mark = n.Mark();
      docs.push_back(YamlDocument{n, mark.is_null() ? 1 : mark.line + 1, 0});
      starts.push_back(mark.is_null() ? (starts.empty() ? 0 : starts.back())
                                      : static_cast<std::size_t>(mark.pos));
    }
    // A document runs from its root's position to the next document's (the last one to the end).
    for (std::size_t i = 0; i < docs.size(); ++i) {
      const std::size_t end = i + 1 < docs.size() ? starts[i + 1] : copy.size();
      docs[i].bytes = end > starts[i] ? end - starts[i] : 0;
    }
    return docs;
  } catch (const YAML::Exception& e) {
    Diagnostic d;
    d.file = file;
    if (!e.mark.is_null()) {
      d.line = e.mark.line + 1;
      d.column = e.mark.column + 1;
    }
    d.message = fmt::format("found invalid YAML: {}; allowed: a YAML or JSON document", e.msg);
    out.push_back(std::move(d));
    return std::nullopt;
  }
}

bool read_text_file(const std::string& path, std::string& text, std::vector<Diagnostic>& out) {
  const auto refuse = [&](std::string message) {
    out.push_back(Diagnostic{Severity::Error, path, 0, 0, 0, "", std::move(message)});
    return false;
  };
  // A FIFO would block and /dev/zero never ends: only regular files are read, and no further
  // than the limit.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) return refuse(fmt::format("cannot read the file: {}", ec.message()));
  if (status.type() == std::filesystem::file_type::directory)
    return refuse("found a folder; allowed: a file");
  if (status.type() != std::filesystem::file_type::regular) {
    return refuse("found a special file (a pipe, device or socket); allowed: a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return refuse(fmt::format("cannot read the file: {}", std::strerror(errno)));
  text.clear();
  char buf[1 << 16];
  while (in && text.size() <= kMaxFileBytes) {
    in.read(buf, sizeof buf);
    text.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return refuse(fmt::format("cannot read the file: {}", std::strerror(errno)));
  if (text.size() > kMaxFileBytes) {
    return refuse(fmt::format("found more than {} bytes; allowed: at most {} bytes", kMaxFileBytes,
                              kMaxFileBytes));
  }
  return true;
}

bool is_kube_list(const YAML::Node& node) {
  if (!node.IsMap()) return false;
  const YAML::Node kind = node["kind"];
  return kind.IsDefined() && kind.IsScalar() && kind.Scalar() == "List";
}

bool is_t9k_kind(std::string_view kind) {
  return kind == "GenericJob" || kind == "PyTorchTrainingJob" || kind == "DeepSpeedJob" ||
         kind == "Queue" || kind == "PodGroup";
}

void decode_manifest_documents(const std::vector<YamlDocument>& docs, const std::string& file,
                               const std::string& base_path, std::vector<LoadedObject>& objects,
                               std::vector<Diagnostic>& out) {
  std::set<std::tuple<std::string, std::string, std::string>> names;
  int index = -1;
  for (const YamlDocument& doc : docs) {
    ++index;
    if (!doc.node.IsDefined() || doc.node.IsNull()) continue;  // "---" with nothing after it
    Report r(file, out, index, work_budget(doc.bytes));
    const auto decode = [&](const Val& v, int line) {
      auto obj = decode_object(r, v);
      if (!obj) return;
      const auto& meta = metadata_of(*obj);
      if (!names.emplace(std::string(kind_name(*obj)), meta.namespace_, meta.name).second) {
        r.error(child_path(v.path, "metadata.name"),
                fmt::format("found {} \"{}\" again; allowed: names unique per kind and namespace",
                            kind_name(*obj), meta.name));
        return;
      }
      objects.push_back(LoadedObject{std::move(*obj), file, index, line, v.path});
    };
    try {
      if (is_kube_list(doc.node)) {
        // `kubectl get genericjobs,...,pods,nodes -A -o yaml` writes one List of mixed kinds:
        // T9k objects are decoded (server fields such as managedFields are accepted), the others
        // (Pods, Nodes, ...) are counted and left to readers that use them (k8s-export traces).
        const YAML::Node items = doc.node["items"];
        const std::string items_path = child_path(base_path, "items");
        if (!items.IsDefined() || items.IsNull()) continue;  // an empty List
        if (!items.IsSequence()) {
          r.error(items.Mark(), items_path,
                  "found " + describe(items) + "; allowed: a list of objects");
          continue;
        }
        std::map<std::string, int> skipped;
        for (std::size_t i = 0; i < items.size(); ++i) {
          const YAML::Node item = items[i];
          const YAML::Node kind = item.IsMap() ? item["kind"] : YAML::Node();
          if (kind.IsDefined() && kind.IsScalar() && !is_t9k_kind(kind.Scalar())) {
            ++skipped[kind.Scalar()];
            continue;
          }
          decode(Val{item, item.Mark(), fmt::format("{}[{}]", items_path, i)},
                 item.Mark().line + 1);
        }
        if (!skipped.empty()) {
          std::string kinds;
          int total = 0;
          for (const auto& [k, n] : skipped) {
            kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, k);
            total += n;
          }
          r.warning(
              doc.node.Mark(), items_path,
              fmt::format("found {} object{} that {} not T9k object{} ({}); not read as manifests "
                          "(those are "
                          "GenericJob, PyTorchTrainingJob, DeepSpeedJob, Queue and PodGroup; an "
                          "export's Nodes and "
                          "Pods serve spec.cluster.fromExport, replays and spec.initialState)",
                          total, total == 1 ? "" : "s", total == 1 ? "is" : "are",
                          total == 1 ? "" : "s", kinds));
        }
        continue;
      }
      decode(Val{doc.node, doc.node.Mark(), base_path}, doc.line);
    } catch (const BudgetExceeded&) {
      add_budget_diagnostic(out, file, index, doc.line);
      return;
    }
  }
}

}  // namespace detail

ManifestSet parse_manifests(std::string_view text, const std::string& file) {
  ManifestSet set;
  const auto docs = detail::parse_yaml(text, file, set.diagnostics);
  if (!docs) return set;
  detail::decode_manifest_documents(*docs, file, "", set.objects, set.diagnostics);
  if (set.objects.empty() && !has_errors(set.diagnostics)) {
    set.diagnostics.push_back(Diagnostic{Severity::Error, file, 0, 0, 0, "",
                                         "found no objects; allowed: one or more T9k objects "
                                         "separated by \"---\""});
  }
  return set;
}

ManifestSet load_manifests(const std::string& path) {
  ManifestSet set;
  std::string text;
  if (!detail::read_text_file(path, text, set.diagnostics)) return set;
  return parse_manifests(text, path);
}

}  // namespace t9k::scenarios
