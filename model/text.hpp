// Text: an immutable string that copies without allocating. The job controllers set the same
// few condition reasons and messages on every job and copy a job's conditions into each new
// status (three reconciles a job at least); as std::string, those copies and the literals made
// into strings were a tenth of a trace run's allocations (docs/performance.md "Labels in a sorted
// array, condition texts that copy without allocating").
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace t9k::model {

class Text {
 public:
  Text() = default;
  // Owned: the characters are kept once, shared by every copy.
  Text(std::string s)  // NOLINT(google-explicit-constructor): a field that was a std::string
      : owned_(s.empty() ? nullptr : std::make_shared<const std::string>(std::move(s))),
        view_(owned_ ? std::string_view(*owned_) : std::string_view{}) {}
  Text(std::string_view s) : Text(std::string(s)) {}  // NOLINT(google-explicit-constructor)
  Text(const char* s) : Text(std::string_view(s)) {}  // NOLINT(google-explicit-constructor)

  // A moved-from text is empty: its view must not outlive the characters it gave away.
  Text(const Text&) = default;
  Text& operator=(const Text&) = default;
  Text(Text&& o) noexcept : owned_(std::move(o.owned_)), view_(std::exchange(o.view_, {})) {}
  Text& operator=(Text&& o) noexcept {
    owned_ = std::move(o.owned_);
    view_ = std::exchange(o.view_, {});
    return *this;
  }
  ~Text() = default;

  // Not owned: `s` must outlive every copy (a literal or a constant of static storage).
  static Text fixed(std::string_view s) {
    Text t;
    t.view_ = s;
    return t;
  }

  operator std::string_view() const { return view_; }  // NOLINT(google-explicit-constructor)
  std::string_view view() const { return view_; }
  std::string str() const { return std::string(view_); }
  bool empty() const { return view_.empty(); }
  std::size_t size() const { return view_.size(); }

  friend bool operator==(const Text& a, const Text& b) { return a.view_ == b.view_; }
  friend bool operator==(const Text& a, std::string_view b) { return a.view_ == b; }
  friend bool operator==(const Text& a, const std::string& b) { return a.view_ == b; }
  friend bool operator==(const Text& a, const char* b) { return a.view_ == b; }
  friend std::ostream& operator<<(std::ostream& os, const Text& t) { return os << t.view_; }

 private:
  std::shared_ptr<const std::string> owned_;
  std::string_view view_;
};

}  // namespace t9k::model

template <>
struct fmt::formatter<t9k::model::Text> : fmt::formatter<std::string_view> {
  template <typename FormatContext>
  auto format(const t9k::model::Text& t, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(t.view(), ctx);
  }
};
