// Text: an immutable string that copies without allocating. The job controllers set the same
// few condition reasons and messages on every job and copy a job's conditions into each new
// status (three reconciles a job at least); as std::string, those copies and the literals made
// into strings were a tenth of a trace run's allocations (docs/performance.md "Labels in a sorted
// array, condition texts that copy without allocating"). In 16 bytes, half a std::string: up to
// 15 characters in place, longer ones in one counted block (docs/performance.md "Records that
// share and shrink").
#pragma once

#include <atomic>
#include <compare>
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
  // Owned: up to 15 characters are kept in the text itself (no allocation, like std::string's
  // short strings, in half its size), and 16 unless the last is a control character (a pod's
  // name, "j000001-worker-0"); longer ones once, in a block shared by every copy.
  Text(const std::string& s)  // NOLINT(google-explicit-constructor): a field that was a string
      : Text(std::string_view(s)) {}
  Text(std::string_view s) { own(s); }                // NOLINT(google-explicit-constructor)
  Text(const char* s) : Text(std::string_view(s)) {}  // NOLINT(google-explicit-constructor)

  Text(const Text& o) noexcept {
    std::memcpy(rep_, o.rep_, sizeof rep_);
    if (tag() == kOwned) header()->refs.fetch_add(1, std::memory_order_relaxed);
  }
  // A moved-from text is empty: it gave its characters away. A short text's characters move
  // with it (views of a short text end with it, as views of std::string's short strings do).
  Text(Text&& o) noexcept {
    std::memcpy(rep_, o.rep_, sizeof rep_);
    std::memset(o.rep_, 0, sizeof o.rep_);
  }
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

  // A view of characters that outlive every copy (a literal, a static name): never copied.
  static Text fixed(std::string_view s) {
    Text t;
    t.set_external(s.data(), checked_size(s.size()), kFixed);
    return t;
  }

  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor)
  std::string_view view() const {
    const std::uint8_t t = tag();
    if (t <= kInline) return {rep_, t};
    if (t < kFixed) return {rep_, sizeof rep_};
    return {external_data(), external_size()};
  }
  std::string str() const { return std::string(view()); }
  bool empty() const { return size() == 0; }
  std::size_t size() const {
    const std::uint8_t t = tag();
    if (t <= kInline) return t;
    return t < kFixed ? sizeof rep_ : external_size();
  }

  friend bool operator==(const Text& a, const Text& b) { return a.view() == b.view(); }
  friend bool operator==(const Text& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const Text& a, const std::string& b) { return a.view() == b; }
  friend bool operator==(const Text& a, const char* b) { return a.view() == b; }
  friend auto operator<=>(const Text& a, const Text& b) { return a.view() <=> b.view(); }
  friend std::ostream& operator<<(std::ostream& os, const Text& t) { return os << t.view(); }

 private:
  // The last of the 16 bytes says what the others hold: 0..15, that many characters from the
  // first byte on; kFixed or kOwned, a pointer (bytes 0-7) and a size (bytes 8-11); anything
  // else (16..253: any byte of UTF-8 text but a control character), it is the 16th of 16
  // characters in place.
  static constexpr std::uint8_t kInline = 15;
  // Bytes that never occur in UTF-8 text.
  static constexpr std::uint8_t kFixed = 0xFE;  // static storage
  static constexpr std::uint8_t kOwned = 0xFF;  // just after a counted block's header
  struct Header {
    std::atomic<std::uint32_t> refs;
  };
  static std::uint32_t checked_size(std::size_t n) {
    if (n > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("model::Text: a text of 4 GiB or more");
    return static_cast<std::uint32_t>(n);
  }
  std::uint8_t tag() const { return static_cast<std::uint8_t>(rep_[kInline]); }
  const char* external_data() const {
    const char* p = nullptr;
    std::memcpy(&p, rep_, sizeof p);
    return p;
  }
  std::uint32_t external_size() const {
    std::uint32_t n = 0;
    std::memcpy(&n, rep_ + sizeof(const char*), sizeof n);
    return n;
  }
  void set_external(const char* p, std::uint32_t n, std::uint8_t tag) {
    std::memcpy(rep_, &p, sizeof p);
    std::memcpy(rep_ + sizeof p, &n, sizeof n);
    rep_[kInline] = static_cast<char>(tag);
  }
  Header* header() const {
    return reinterpret_cast<Header*>(const_cast<char*>(external_data()) - sizeof(Header));
  }
  void own(std::string_view s) {
    if (s.empty()) return;  // all zero: empty (and memcpy is never handed a null pointer)
    if (s.size() <= kInline) {
      std::memcpy(rep_, s.data(), s.size());
      rep_[kInline] = static_cast<char>(s.size());
      return;
    }
    if (s.size() == sizeof rep_ && static_cast<std::uint8_t>(s.back()) > kInline &&
        static_cast<std::uint8_t>(s.back()) < kFixed) {
      std::memcpy(rep_, s.data(), s.size());
      return;
    }
    const std::uint32_t n = checked_size(s.size());
    char* block = static_cast<char*>(::operator new(sizeof(Header) + n));
    new (block) Header{1};
    std::memcpy(block + sizeof(Header), s.data(), n);
    set_external(block + sizeof(Header), n, kOwned);
  }
  void release() noexcept {
    if (tag() != kOwned) return;
    Header* h = header();
    if (h->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      h->~Header();
      ::operator delete(static_cast<void*>(h));
    }
  }
  void swap(Text& o) noexcept {
    char tmp[sizeof rep_];
    std::memcpy(tmp, rep_, sizeof rep_);
    std::memcpy(rep_, o.rep_, sizeof rep_);
    std::memcpy(o.rep_, tmp, sizeof rep_);
  }

  alignas(8) char rep_[16] = {};
};

}  // namespace t9k::model

template <>
struct fmt::formatter<t9k::model::Text> : fmt::formatter<std::string_view> {
  template <typename FormatContext>
  auto format(const t9k::model::Text& t, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(t.view(), ctx);
  }
};
