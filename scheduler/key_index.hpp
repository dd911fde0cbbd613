// KeyIndex: key -> id over a vector of records that hold their own keys. The table keeps the
// ids only (4 bytes a slot) and reads a key from its record when it hashes or compares: a
// second copy of every pod's and group's key was about 5 MB of the backlog's peak (issue 49).
// Look-up only, never iterated (absl's order is unspecified).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>

namespace t9k::scheduler {

// For absl tables keyed by strings (std::string, model::Text), found by any std::string_view
// without building a key: Debian's Abseil has a string_view of its own, which its default hash
// expects, so a std::string_view had to be converted at every look-up.
struct StringKeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view key) const { return absl::Hash<std::string_view>{}(key); }
};
struct StringKeyEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
};

// `Records` is indexed by id (a std::vector or a Chunked) and its records have a `key`
// convertible to std::string_view. A record's key must not change while its id is filed, and
// the sequence must stay the same object (ClusterSnapshot is neither copied nor moved); it may
// grow.
template <class Records, class Id = std::int32_t>
class KeyIndex {
 public:
  explicit KeyIndex(const Records& infos) : ids_(0, Hash{&infos}, Eq{&infos}) {}
  KeyIndex(const KeyIndex&) = delete;
  KeyIndex& operator=(const KeyIndex&) = delete;

  std::optional<Id> find(std::string_view key) const {
    const auto it = ids_.find(key);
    if (it == ids_.end()) return std::nullopt;
    return *it;
  }
  // Files `id` under its record's key; false when a record of that key is filed already.
  bool insert(Id id) { return ids_.insert(id).second; }
  // Unfiles `id`; its record must still hold the key it was filed under.
  void erase(Id id) { ids_.erase(id); }
  std::size_t size() const { return ids_.size(); }

 private:
  static std::string_view key_of(const Records* infos, Id id) {
    return (*infos)[static_cast<std::size_t>(id)].key;
  }
  struct Hash {
    using is_transparent = void;
    const Records* infos;
    std::size_t operator()(std::string_view k) const { return StringKeyHash{}(k); }
    std::size_t operator()(Id id) const { return (*this)(key_of(infos, id)); }
  };
  struct Eq {
    using is_transparent = void;
    const Records* infos;
    bool operator()(Id a, Id b) const { return a == b || key_of(infos, a) == key_of(infos, b); }
    bool operator()(Id a, std::string_view b) const { return key_of(infos, a) == b; }
    bool operator()(std::string_view a, Id b) const { return a == key_of(infos, b); }
  };
  absl::flat_hash_set<Id, Hash, Eq> ids_;
};

}  // namespace t9k::scheduler
