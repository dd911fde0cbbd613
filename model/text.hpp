// Text: an immutable string that copies without allocating. The job controllers set the same
// few condition reasons and messages on every job and copy a job's conditions into each new
// status (three reconciles a job at least); as std::string, those copies and the literals made
// into strings were a tenth of a trace run's allocations (docs/performance.md "Labels in a sorted
// array, condition texts that copy without allocating").
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace t9k::model {

class Text {
 public:
  Text() = default;
  // Owned: the characters are kept once, shared by every copy.
  Text(const std::string& s)  // NOLINT(google-explicit-constructor): a field that was a string
      : Text(std::string_view(s)) {}
  Text(std::string_view s) { own(s); }                // NOLINT(google-explicit-constructor)
  Text(const char* s) : Text(std::string_view(s)) {}  // NOLINT(google-explicit-constructor)

  Text(const Text& o) noexcept : data_(o.data_), size_(o.size_), owned_(o.owned_) {
    if (owned_) header()->refs.fetch_add(1, std::memory_order_relaxed);
  }
  // A moved-from text is empty: it gave its characters away.
  Text(Text&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        owned_(std::exchange(o.owned_, false)) {}
  Text& operator=(const Text& o) noexcept {
    Text copy(o);
    swap(copy);
    return *this;
  }
  Text& operator=(Text&& o) noexcept {
    Text taken(std::move(o));
    swap(taken);
    return *this;
  }
  ~Text() { release(); }

  // Not owned: `s` must outlive every copy (a literal or a constant of static storage).
  static Text fixed(std::string_view s) {
    Text t;
    t.data_ = s.data();
    t.size_ = checked_size(s.size());
    return t;
  }

  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor)
  std::string_view view() const { return {data_, size_}; }
  std::string str() const { return std::string(view()); }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  friend bool operator==(const Text& a, const Text& b) { return a.view() == b.view(); }
  friend bool operator==(const Text& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const Text& a, const std::string& b) { return a.view() == b; }
  friend bool operator==(const Text& a, const char* b) { return a.view() == b; }
  friend std::ostream& operator<<(std::ostream& os, const Text& t) { return os << t.view(); }

 private:
  // An owned text's block: this header, then its characters. 16 bytes a Text where a shared
  // std::string and a view were 32: every job condition holds two (issue 49).
  struct Header {
    std::atomic<std::uint32_t> refs;
  };
  static std::uint32_t checked_size(std::size_t n) {
    if (n > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("model::Text: a text of 4 GiB or more");
    return static_cast<std::uint32_t>(n);
  }
  Header* header() const {
    return reinterpret_cast<Header*>(const_cast<char*>(data_) - sizeof(Header));
  }
  void own(std::string_view s) {
    if (s.empty()) return;
    const std::uint32_t n = checked_size(s.size());
    char* block = static_cast<char*>(::operator new(sizeof(Header) + n));
    new (block) Header{1};
    std::memcpy(block + sizeof(Header), s.data(), n);
    data_ = block + sizeof(Header);
    size_ = n;
    owned_ = true;
  }
  void release() noexcept {
    if (!owned_) return;
    Header* h = header();
    if (h->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      h->~Header();
      ::operator delete(static_cast<void*>(h));
    }
  }
  void swap(Text& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(owned_, o.owned_);
  }

  const char* data_ = nullptr;  // static storage, or just after its block's header
  std::uint32_t size_ = 0;
  bool owned_ = false;
};

}  // namespace t9k::model

template <>
struct fmt::formatter<t9k::model::Text> : fmt::formatter<std::string_view> {
  template <typename FormatContext>
  auto format(const t9k::model::Text& t, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(t.view(), ctx);
  }
};
