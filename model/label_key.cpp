#include "model/label_key.hpp"

#include <functional>
#include <mutex>
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
  Table& t = table();
  const std::lock_guard lock(t.mutex);
  auto it = t.keys.find(s);
  if (it == t.keys.end()) it = t.keys.emplace(s).first;
  s_ = &*it;
}

}  // namespace t9k::model
