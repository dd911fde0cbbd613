// Internal: walking a yaml-cpp tree against a schema, collecting diagnostics. Not a public
// header (yaml-cpp types appear here); only scenarios/*.cpp include it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "kernel/time.hpp"
#include "model/enums.hpp"
#include "model/quantity.hpp"
#include "scenarios/format/diagnostics.hpp"

namespace t9k::scenarios::detail {

// Thrown when a document asks for more work than any real file needs (alias bombs), or has
// more findings than anyone reads.
struct BudgetExceeded {};
// The diagnostic for a caught BudgetExceeded (unless the findings cap already said so).
void add_budget_diagnostic(std::vector<Diagnostic>& out, const std::string& file, int document,
                           int line);

// The work (values visited, aliases counted each time) allowed for a document of this many
// bytes: honest YAML spends at least a byte or two per value, so it stays far below; an alias
// bomb asks for exponentially more than its size and is stopped after work linear in it.
std::size_t work_budget(std::size_t document_bytes);

std::string child_path(const std::string& path, std::string_view key);
std::string index_path(const std::string& path, std::size_t i);

// Optimal string alignment distance (Levenshtein plus adjacent transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b);
// ASCII lower case (names and keys are ASCII).
std::string lower(std::string_view s);
// The candidate nearest to `word`, when it is near enough to be a likely typo.
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string_view> candidates);
// "a, b, c" (candidates in order).
std::string join_names(std::span<const std::string_view> names);

// Kubernetes name rules (faults-and-validation §3.3, apimachinery validation.go).
bool is_dns1123_label(std::string_view s);
bool is_dns1123_subdomain(std::string_view s);
bool is_qualified_name(std::string_view s);  // label keys: [prefix/]name
bool is_label_value(std::string_view s);

class Report {
 public:
  Report(std::string file, std::vector<Diagnostic>& out, int document = 0,
         std::size_t budget = work_budget(0));
  void error(const YAML::Mark& at, const std::string& path, std::string message);
  void warning(const YAML::Mark& at, const std::string& path, std::string message);
  // What loading assumed or chose (Severity::Note).
  void note(const YAML::Mark& at, const std::string& path, std::string message);
  // For checks on typed values: the position recorded for `path`, or its nearest parent's.
  void error(const std::string& path, std::string message);
  void warning(const std::string& path, std::string message);
  void record(const std::string& path, const YAML::Mark& at);
  // True when an error was already reported at `path` or at a parent of it: later checks on a
  // value that failed to decode would only repeat the first finding.
  bool blocked(const std::string& path) const;
  // Marks `path` as already explained (e.g. by an unknown-field hint naming it), so a later
  // "required field is missing" there is not reported twice.
  void block(const std::string& path) { error_paths_.insert(path); }
  // True when an error was reported at `path` or anywhere below it.
  bool has_error_under(const std::string& path) const;
  // Counts work; throws BudgetExceeded past the limit.
  void tick();
  bool any_error() const { return errors_ > 0; }
  std::size_t error_count() const { return errors_; }
  const std::string& file() const { return file_; }
  int document() const { return document_; }

 private:
  void add(Severity s, const YAML::Mark* at, const std::string& path, std::string message);
  std::string file_;
  std::vector<Diagnostic>& out_;
  int document_;
  std::map<std::string, std::pair<int, int>> marks_;
  std::set<std::string> error_paths_;
  std::size_t errors_ = 0;
  std::size_t work_ = 0;
  std::size_t budget_;
};

// A value in the tree: the node (possibly null or undefined), where it is, and its path.
struct Val {
  YAML::Node node;
  YAML::Mark mark;
  std::string path;
  bool present() const { return node.IsDefined() && !node.IsNull(); }
};

// "a mapping", "a sequence", "null", "\"text\"" (quoted) or text (plain scalars).
std::string describe(const YAML::Node& node);

class MapReader {
 public:
  // Reports a non-mapping value, duplicate keys, non-scalar keys, and keys outside
  // known ∪ accepted (with `unknown_severity`, and a did-you-mean hint). `accepted` fields are
  // valid but not kept by the model.
  MapReader(Report& r, const Val& v, std::span<const std::string_view> known,
            std::span<const std::string_view> accepted = {},
            Severity unknown_severity = Severity::Error);
  bool ok() const { return ok_; }
  bool has(std::string_view key) const;
  Val get(std::string_view key) const;
  // Keys in file order (for free-form maps).
  const std::vector<std::pair<std::string, Val>>& entries() const& { return entries_; }
  const Val& self() const { return self_; }

 private:
  Val self_;
  bool ok_ = false;
  std::vector<std::pair<std::string, Val>> entries_;
};

// Reads a map whose keys are free-form (labels, options); every value must be a scalar.
class FreeMap {
 public:
  // Values are scalars, except under the keys in `structured` (read by the caller).
  FreeMap(Report& r, const Val& v, std::span<const std::string_view> structured = {});
  const std::vector<std::pair<std::string, Val>>& entries() const& { return entries_; }
  // For `for (auto& e : FreeMap(r, v).entries())`: the temporary dies before the loop runs.
  std::vector<std::pair<std::string, Val>> entries() && { return std::move(entries_); }

 private:
  std::vector<std::pair<std::string, Val>> entries_;
};

// Elements of a sequence (nothing when absent; an error when not a sequence).
std::vector<Val> read_list(Report& r, const Val& v);

// Scalars. Each returns nullopt (after reporting) when the value is present but wrong, and
// nullopt silently when absent; callers keep their default then.
std::optional<std::string> read_string(Report& r, const Val& v);
std::optional<std::int64_t> read_int(Report& r, const Val& v, std::int64_t min, std::int64_t max,
                                     std::string_view rule = "");
std::optional<std::int32_t> read_int32(Report& r, const Val& v, std::int64_t min = INT32_MIN,
                                       std::int64_t max = INT32_MAX, std::string_view rule = "");
std::optional<double> read_double(Report& r, const Val& v, double min, double max);
// 0 .. 2^64 - 1 (a seed).
std::optional<std::uint64_t> read_uint64(Report& r, const Val& v);
std::optional<bool> read_bool(Report& r, const Val& v);
std::optional<model::Quantity> read_quantity(Report& r, const Val& v, bool allow_negative = false);
std::optional<kernel::SimDuration> read_duration(Report& r, const Val& v);
std::optional<std::vector<std::string>> read_string_list(Report& r, const Val& v);
// A string of one of `allowed`; unknown spellings get a hint.
std::optional<std::string> read_choice(Report& r, const Val& v,
                                       std::span<const std::string_view> allowed);

template <class E>
std::optional<E> read_enum(Report& r, const Val& v) {
  const auto s = read_choice(r, v, model::enum_names<E>());
  if (!s) return std::nullopt;
  return model::parse_enum<E>(*s);
}

// Reports `path` as missing when `v` is absent.
bool require(Report& r, const Val& v);

}  // namespace t9k::scenarios::detail
