#include "protocol/json_reader.hpp"

#include <fmt/format.h>

#include "scenarios/format/serialize.hpp"

namespace t9k::protocol::detail {

std::string describe(const Value& j) {
  switch (j.type()) {
    case json::Type::Null:
      return "null";
    case json::Type::Object:
      return "an object";
    case json::Type::Array:
      return "a list";
    case json::Type::String: {
      std::string s = j.string();
      if (s.size() > 40) s = s.substr(0, 40) + "...";
      return fmt::format("the string \"{}\"", s);
    }
    default:
      return std::string(j.raw());
  }
}

std::string Path::str() const {
  std::string head = parent_ ? parent_->str() : std::string();
  if (index_ >= 0) return fmt::format("{}[{}]", head, index_);
  if (head.empty()) return std::string(key_);
  return head + "." + std::string(key_);
}

void bad(const Path& path, std::string_view expected, const Value& found) {
  throw ProtocolError(
      fmt::format("{}: expected {}, found {}", path.str(), expected, describe(found)));
}

void bad(const Path& path, std::string_view message) {
  throw ProtocolError(fmt::format("{}: {}", path.str(), message));
}

const Value& object(const Value& j, const Path& path) {
  if (!j.is_object()) bad(path, "an object", j);
  return j;
}

const Value& array(const Value& j, const Path& path) {
  if (!j.is_array()) bad(path, "a list", j);
  return j;
}

Member member(const Value& obj, std::string_view key) { return Member{obj.find(key)}; }

Value need(const Value& obj, const Path& path, std::string_view key) {
  const Member m = member(obj, key);
  if (!m) bad(child(path, key), "required field is missing");
  return *m;
}

std::string string(const Value& j, const Path& path) {
  if (!j.is_string()) bad(path, "a string", j);
  return j.string();
}

std::int64_t int64(const Value& j, const Path& path) {
  std::int64_t v = 0;
  if (j.to_int64(v)) return v;
  if (j.is_number()) {
    const double d = j.number();
    if (d == static_cast<double>(static_cast<std::int64_t>(d)) && d > -9.2e18 && d < 9.2e18) {
      return static_cast<std::int64_t>(d);
    }
  }
  bad(path, "a whole number", j);
}

std::int32_t int32(const Value& j, const Path& path) {
  const std::int64_t v = int64(j, path);
  if (v < INT32_MIN || v > INT32_MAX) bad(path, "a whole number of 32 bits", j);
  return static_cast<std::int32_t>(v);
}

double number(const Value& j, const Path& path) {
  if (!j.is_number()) bad(path, "a number", j);
  return j.number();
}

bool boolean(const Value& j, const Path& path) {
  if (!j.is_boolean()) bad(path, "true or false", j);
  return j.boolean();
}

model::SimTime timestamp(const Value& j, const Path& path) {
  model::SimTime t{};
  if (!j.is_string() || !scenarios::parse_timestamp(j.string(), t)) {
    bad(path, "an RFC 3339 time at or after 1970-01-01T00:00:00Z (microseconds at most)", j);
  }
  return t;
}

model::Quantity quantity(const Value& j, const Path& path) {
  std::int64_t units = 0;
  if (j.to_int64(units)) return model::Quantity::from_units(units);
  const std::string s = j.is_number() ? std::string(j.raw()) : string(j, path);
  try {
    return model::Quantity::parse(s);
  } catch (const std::exception& e) {
    bad(path, e.what());
  }
}

std::vector<std::string> strings(const Value& j, const Path& path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  for (const auto& x : array(j, path).items()) out.push_back(string(x, item(path, i++)));
  return out;
}

model::Labels labels(const Value& j, const Path& path) {
  model::Labels out;
  for (const auto& m : object(j, path).members()) out[m.key] = string(m.value, child(path, m.key));
  return out;
}

model::ResourceList resources(const Value& j, const Path& path) {
  model::ResourceList out;
  for (const auto& m : object(j, path).members())
    out[m.key] = quantity(m.value, child(path, m.key));
  return out;
}

std::string opt_string(const Value& obj, const Path& path, std::string_view key, std::string def) {
  const Member m = member(obj, key);
  return m ? string(*m, child(path, key)) : def;
}

model::ObjectMeta metadata(const Value& j, const Path& path) {
  object(j, path);
  model::ObjectMeta m;
  m.name = opt_string(j, path, "name");
  m.namespace_ = opt_string(j, path, "namespace");
  if (const Member x = member(j, "labels")) m.labels = labels(*x, child(path, "labels"));
  if (const Member x = member(j, "annotations"))
    m.annotations =
        model::Shared<model::Labels>::or_default(labels(*x, child(path, "annotations")));
  m.uid = opt_string(j, path, "uid");
  if (const Member x = member(j, "creationTimestamp"))
    m.creation_timestamp = timestamp(*x, child(path, "creationTimestamp"));
  if (const Member refs = member(j, "ownerReferences")) {
    const Path p = child(path, "ownerReferences");
    std::size_t i = 0;
    for (const auto& r : array(*refs, p).items()) {
      const Path rp = item(p, i++);
      object(r, rp);
      model::OwnerReference o;
      o.api_version = opt_string(r, rp, "apiVersion");
      o.kind = opt_string(r, rp, "kind");
      o.name = opt_string(r, rp, "name");
      o.uid = opt_string(r, rp, "uid");
      if (const Member c = member(r, "controller"))
        o.controller = boolean(*c, child(rp, "controller"));
      m.owner_references.push_back(std::move(o));
    }
  }
  return m;
}

void write_labels(Writer& w, const model::Labels& l) {
  w.begin_object();
  for (const auto& [k, v] : l) w.key(k).string(v);
  w.end_object();
}

void write_resources(Writer& w, const model::ResourceList& r) {
  w.begin_object();
  for (const auto& [k, q] : r) w.key(k).string(q.to_string());
  w.end_object();
}

void write_strings(Writer& w, const std::vector<std::string>& v) {
  w.begin_array();
  for (const auto& s : v) w.string(s);
  w.end_array();
}

void write_time(Writer& w, model::SimTime t) { w.string(scenarios::format_timestamp(t)); }

void write_metadata(Writer& w, const model::ObjectMeta& meta,
                    std::optional<model::SimTime> deletion, const model::Labels* labels) {
  w.begin_object();
  if (!meta.name.empty()) w.key("name").string(meta.name);
  if (!meta.namespace_.empty()) w.key("namespace").string(meta.namespace_);
  if (!labels) labels = &meta.labels;
  if (!labels->empty()) write_labels(w.key("labels"), *labels);
  if (!meta.annotations->empty()) write_labels(w.key("annotations"), *meta.annotations);
  if (!meta.uid.empty()) w.key("uid").string(meta.uid);
  if (meta.creation_timestamp) write_time(w.key("creationTimestamp"), *meta.creation_timestamp);
  if (!meta.owner_references.empty()) {
    w.key("ownerReferences").begin_array();
    for (const auto& r : meta.owner_references) {
      w.begin_object()
          .key("apiVersion")
          .string(r.api_version)
          .key("kind")
          .string(r.kind)
          .key("name")
          .string(r.name)
          .key("uid")
          .string(r.uid)
          .key("controller")
          .boolean(r.controller)
          .end_object();
    }
    w.end_array();
  }
  if (deletion) write_time(w.key("deletionTimestamp"), *deletion);
  w.end_object();
}

}  // namespace t9k::protocol::detail
