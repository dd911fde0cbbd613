// LabelKey: a label's key (or a node selector's, an annotation's), kept once per process. Every
// pod carries the half a dozen labels of §10, whose keys of 26 to 37 characters are past
// std::string's inline 15: as std::string, each key was an allocation on every pod, a third of a
// pod's label memory. Keys come from a small vocabulary (§10's, templates', nodes', traces'), so
// each is interned: a key is one pointer, copied freely, equal by identity, ordered by its
// characters (so a label map iterates exactly as it would with std::string keys).
#pragma once

#include <compare>
#include <concepts>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace t9k::model {

class LabelKey {
 public:
  LabelKey();
  // Interned: a look-up in the thread's keys met, else in a process-wide table behind a mutex
  // (and an insert the first time). The table only grows, bounded by the inputs' vocabulary of
  // keys. Constants on a hot path are best interned once (`static const LabelKey`); a look-up
  // that may miss is best made with find(), which takes any string without interning it
  // (operator[], at() and erase() take a LabelKey).
  LabelKey(std::string_view s);                                      // NOLINT: was std::string
  LabelKey(const std::string& s) : LabelKey(std::string_view(s)) {}  // NOLINT
  LabelKey(const char* s) : LabelKey(std::string_view(s)) {}         // NOLINT

  const std::string& str() const { return *s_; }
  operator const std::string&() const { return *s_; }  // NOLINT(google-explicit-constructor)
  operator std::string_view() const { return *s_; }    // NOLINT(google-explicit-constructor)
  std::string_view view() const { return *s_; }
  const char* c_str() const { return s_->c_str(); }
  const char* data() const { return s_->data(); }
  std::size_t size() const { return s_->size(); }
  bool empty() const { return s_->empty(); }

  friend bool operator==(const LabelKey& a, const LabelKey& b) { return a.s_ == b.s_; }
  friend bool operator==(const LabelKey& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const LabelKey& a, const std::string& b) { return *a.s_ == b; }
  friend bool operator==(const LabelKey& a, const char* b) { return a.view() == b; }
  friend std::strong_ordering operator<=>(const LabelKey& a, const LabelKey& b) {
    return a.s_ == b.s_ ? std::strong_ordering::equal : a.view() <=> b.view();
  }
  friend std::strong_ordering operator<=>(const LabelKey& a, std::string_view b) {
    return a.view() <=> b;
  }
  friend std::strong_ordering operator<=>(const LabelKey& a, const std::string& b) {
    return a.view() <=> std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const LabelKey& a, const char* b) {
    return a.view() <=> std::string_view(b);
  }
  friend std::ostream& operator<<(std::ostream& os, const LabelKey& k) { return os << k.view(); }

 private:
  const std::string* s_;  // in the table; never freed
};

// Orders keys by their characters, and finds them by any string without interning it.
struct LabelKeyLess {
  using is_transparent = void;
  bool operator()(const LabelKey& a, const LabelKey& b) const { return (a <=> b) < 0; }
  template <class K>
  requires(!std::same_as<K, LabelKey> && std::convertible_to<const K&, std::string_view>) bool
  operator()(const LabelKey& a, const K& b) const {
    return a.view() < std::string_view(b);
  }
  template <class K>
  requires(!std::same_as<K, LabelKey> && std::convertible_to<const K&, std::string_view>) bool
  operator()(const K& a, const LabelKey& b) const {
    return std::string_view(a) < b.view();
  }
};

}  // namespace t9k::model

template <>
struct fmt::formatter<t9k::model::LabelKey> : fmt::formatter<std::string_view> {
  template <typename FormatContext>
  auto format(const t9k::model::LabelKey& k, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(k.view(), ctx);
  }
};
