#include "model/label_key.hpp"

#include <functional>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace t9k::model {

namespace {

struct Hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Node-based, so a key's string never moves; never destroyed, so keys held by objects of static
// storage stay valid to the end. Runs of a study share it from several threads.
struct Table {
  std::mutex mutex;
  std::unordered_set<std::string, Hash, std::equal_to<>> keys;
};

Table& table() {
  static Table* t = new Table;
  return *t;
}

const std::string* empty_key() {
  static const std::string* e = new std::string;
  return e;
}

}  // namespace

LabelKey::LabelKey() : s_(empty_key()) {}

LabelKey::LabelKey(std::string_view s) {
  if (s.empty()) {
    s_ = empty_key();
    return;
  }
  // Each thread remembers the keys it has met, so that decoders interning every key they read
  // (plugin messages, traces) take the shared lock once per key and thread, not once per use.
  thread_local std::unordered_map<std::string_view, const std::string*, Hash, std::equal_to<>> met;
  if (const auto m = met.find(s); m != met.end()) {
    s_ = m->second;
    return;
  }
  Table& t = table();
  {
    const std::lock_guard lock(t.mutex);
    auto it = t.keys.find(s);
    if (it == t.keys.end()) it = t.keys.emplace(s).first;
    s_ = &*it;
  }
  met.emplace(std::string_view(*s_), s_);
}

}  // namespace t9k::model
