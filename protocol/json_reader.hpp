// Reading the protocol's JSON with field paths in every error (protocol/ internal). Each reader
// takes the value and the path of that value in the message ("result.actions[2].pod").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/enums.hpp"
#include "model/meta.hpp"
#include "protocol/json.hpp"
#include "protocol/protocol.hpp"

namespace t9k::protocol::detail {

using json::Value;
using json::Writer;

// Where a value sits in a message ("result.actions[2].pod"): a chain to its parent, built for
// free while decoding and printed only when an error names it. A Path refers to its parent (and
// its key's text): keep it no longer than they live.
class Path {
 public:
  Path(const char* root) : key_(root) {}  // NOLINT: a root path from a literal
  Path(const Path& parent, std::string_view key) : parent_(&parent), key_(key) {}
  Path(const Path& parent, std::size_t index)
      : parent_(&parent), index_(static_cast<std::int64_t>(index)) {}
  // Not under a temporary (a literal made into a root path dies at the end of its expression, and
  // a child kept beyond it printed through a dangling parent: a crash when an error named it).
  Path(Path&& parent, std::string_view key) = delete;
  Path(Path&& parent, std::size_t index) = delete;
  std::string str() const;

 private:
  const Path* parent_ = nullptr;
  std::string_view key_;
  std::int64_t index_ = -1;
};
inline Path child(const Path& path, std::string_view key) { return Path(path, key); }
inline Path item(const Path& path, std::size_t i) { return Path(path, i); }
Path child(Path&& path, std::string_view key) = delete;  // name the parent: see Path's constructors
Path item(Path&& path, std::size_t i) = delete;

std::string describe(const Value& j);  // "the string \"x\"", "3", "null", "an object", ...
[[noreturn]] void bad(const Path& path, std::string_view expected, const Value& found);
[[noreturn]] void bad(const Path& path, std::string_view message);

// A member that may be absent: true when present and not null.
struct Member {
  Value v;
  explicit operator bool() const { return v.present() && !v.is_null(); }
  const Value& operator*() const { return v; }
  const Value* operator->() const { return &v; }
};

const Value& object(const Value& j, const Path& path);
const Value& array(const Value& j, const Path& path);
Member member(const Value& obj, std::string_view key);
// The member; throws naming the path when absent or null.
Value need(const Value& obj, const Path& path, std::string_view key);

std::string string(const Value& j, const Path& path);
std::int64_t int64(const Value& j, const Path& path);
std::int32_t int32(const Value& j, const Path& path);
double number(const Value& j, const Path& path);
bool boolean(const Value& j, const Path& path);
model::SimTime timestamp(const Value& j, const Path& path);
model::Quantity quantity(const Value& j, const Path& path);
std::vector<std::string> strings(const Value& j, const Path& path);
model::Labels labels(const Value& j, const Path& path);
model::ResourceList resources(const Value& j, const Path& path);
model::ObjectMeta metadata(const Value& j, const Path& path);
std::string opt_string(const Value& obj, const Path& path, std::string_view key,
                       std::string def = "");

// An enum by its Kubernetes spelling (model::parse_enum), listing the allowed ones when wrong.
template <class E>
E enumeration(const Value& j, const Path& path) {
  const std::string s = string(j, path);
  if (const auto e = model::parse_enum<E>(s)) return *e;
  std::string allowed;
  // Appended piece by piece: `"" + std::string(n)` made GCC 12 see a copy of unbounded size
  // (-Wstringop-overflow, a false positive once inlined into the status patch).
  for (const auto n : model::enum_names<E>()) {
    if (!allowed.empty()) allowed += ", ";
    allowed += n;
  }
  bad(path, "one of " + allowed, j);
}

// ---- writing (the shapes scenarios/format writes) ----
void write_labels(Writer& w, const model::Labels& l);
void write_resources(Writer& w, const model::ResourceList& r);
// Metadata as an object; a pod's deletionTimestamp goes last when given. `labels`: in place of
// m.labels (a pod's, model::pod_labels).
void write_metadata(Writer& w, const model::ObjectMeta& m,
                    std::optional<model::SimTime> deletion = std::nullopt,
                    const model::Labels* labels = nullptr);
void write_strings(Writer& w, const std::vector<std::string>& v);
void write_time(Writer& w, model::SimTime t);

}  // namespace t9k::protocol::detail
