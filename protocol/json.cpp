#include "protocol/json.hpp"

#include <array>
#include <charconv>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "protocol/protocol.hpp"

namespace t9k::protocol::json {

namespace {

constexpr int kMaxDepth = 200;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The bytes that end a plain run of string text: '"', '\\' and control characters.
constexpr std::array<bool, 256> kStringStop = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = true;
  t['"'] = true;
  t['\\'] = true;
  return t;
}();

// FNV-1a of a member name's text: decoders look members up by name, and a hash compare skips the
// names that differ without comparing their bytes.
std::uint32_t key_hash(std::string_view k) {
  std::uint32_t h = 2166136261u;
  for (const char c : k) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

// ---- parsing ----

class Parser {
 public:
  Parser(Document& doc, std::string_view text, std::string_view what)
      : doc_(doc), s_(text), what_(what) {}

  void run() {
    skip();
    value(0);
    skip();
    if (pos_ != s_.size()) fail("text after the value");
  }

 private:
  [[noreturn]] void fail(std::string_view why) {
    throw ProtocolError(fmt::format("{}: not JSON ({} at byte {})", what_, why, pos_));
  }
  void skip() {
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  // Parses the string starting at the quote; returns [begin, end) of its content.
  std::pair<std::uint32_t, std::uint32_t> string_body(bool& escaped) {
    ++pos_;  // the quote
    const auto begin = static_cast<std::uint32_t>(pos_);
    escaped = false;
    for (;;) {
      // Most bytes of a string are none of '"', '\\' or a control character: skip them at once.
      const char* p = s_.data() + pos_;
      const char* const e = s_.data() + s_.size();
      while (p < e && !kStringStop[static_cast<unsigned char>(*p)]) ++p;
      pos_ = static_cast<std::size_t>(p - s_.data());
      if (pos_ >= s_.size()) fail("an unterminated string");
      const char c = s_[pos_];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) fail("a control character in a string");
      if (c == '\\') {
        escaped = true;
        ++pos_;
        if (pos_ >= s_.size()) fail("an unterminated escape");
        const char e = s_[pos_];
        if (e == 'u') {
          for (int i = 1; i <= 4; ++i) {
            if (pos_ + static_cast<std::size_t>(i) >= s_.size() ||
                hex(s_[pos_ + static_cast<std::size_t>(i)]) < 0) {
              fail("a bad \\u escape");
            }
          }
          pos_ += 4;
        } else if (!std::strchr("\"\\/bfnrt", e)) {
          fail("a bad escape");
        }
      }
      ++pos_;
    }
    const auto end = static_cast<std::uint32_t>(pos_);
    ++pos_;
    return {begin, end};
  }

  void number(Document::Node& n) {
    const std::size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size()) fail("a bad number");
    if (s_[pos_] == '0') {
      ++pos_;
    } else if (s_[pos_] >= '1' && s_[pos_] <= '9') {
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    } else {
      fail("a bad number");
    }
    bool integer = true;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      integer = false;
      ++pos_;
      if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9') fail("a bad number");
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      integer = false;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9') fail("a bad number");
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    n.type = Type::Number;
    n.flag = integer;
    n.begin = static_cast<std::uint32_t>(start);
  }

  // Parses one value into a new node; returns its index.
  std::uint32_t value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than 200");
    if (pos_ >= s_.size()) fail("a missing value");
    const auto index = static_cast<std::uint32_t>(doc_.nodes_.size());
    doc_.nodes_.emplace_back();
    Document::Node n;
    n.begin = static_cast<std::uint32_t>(pos_);
    const char c = s_[pos_];
    if (c == '{' || c == '[') {
      const bool obj = c == '{';
      n.type = obj ? Type::Object : Type::Array;
      ++pos_;
      skip();
      std::uint32_t last = 0;
      if (pos_ < s_.size() && s_[pos_] == (obj ? '}' : ']')) {
        ++pos_;
      } else {
        for (;;) {
          std::pair<std::uint32_t, std::uint32_t> key{0, 0};
          bool key_escaped = false;
          if (obj) {
            if (pos_ >= s_.size() || s_[pos_] != '"') fail("a missing member name");
            key = string_body(key_escaped);
            skip();
            if (pos_ >= s_.size() || s_[pos_] != ':') fail("a missing ':'");
            ++pos_;
            skip();
          }
          const std::uint32_t child = value(depth + 1);
          if (obj) {
            doc_.nodes_[child].key_begin = key.first;
            doc_.nodes_[child].key_end = key.second;
            doc_.nodes_[child].key_hash = key_hash(s_.substr(key.first, key.second - key.first));
            doc_.nodes_[child].key_escaped = key_escaped;
          }
          if (last == 0) {
            n.first = child;
          } else {
            doc_.nodes_[last].next = child;
          }
          last = child;
          ++n.count;
          skip();
          if (pos_ < s_.size() && s_[pos_] == ',') {
            ++pos_;
            skip();
            continue;
          }
          if (pos_ < s_.size() && s_[pos_] == (obj ? '}' : ']')) {
            ++pos_;
            break;
          }
          fail(obj ? "a missing ',' or '}'" : "a missing ',' or ']'");
        }
      }
    } else if (c == '"') {
      bool escaped = false;
      string_body(escaped);
      n.type = Type::String;
      n.flag = escaped;
    } else if (c == 't' || c == 'f') {
      if (!literal(c == 't' ? "true" : "false")) fail("a bad literal");
      n.type = Type::Boolean;
      n.flag = c == 't';
    } else if (c == 'n') {
      if (!literal("null")) fail("a bad literal");
      n.type = Type::Null;
    } else {
      number(n);
    }
    n.end = static_cast<std::uint32_t>(pos_);
    // Keep the key fields set by the caller later; copy the rest now.
    auto& slot = doc_.nodes_[index];
    slot.type = n.type;
    slot.flag = n.flag;
    slot.begin = n.begin;
    slot.end = n.end;
    slot.first = n.first;
    slot.count = n.count;
    return index;
  }

  Document& doc_;
  std::string_view s_;
  std::string_view what_;
  std::size_t pos_ = 0;
};

Document Document::parse(std::string_view text, std::string_view what) {
  if (text.size() >= 0xFFFFFFF0u) throw ProtocolError(fmt::format("{}: more than 4 GiB", what));
  Document d;
  d.text_ = text;
  d.nodes_.reserve(text.size() / 8 + 4);
  Parser(d, text, what).run();
  return d;
}

std::string unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    const char e = s[++i];
    switch (e) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        auto code = [&](std::size_t at) {  // the 4 hex digits after s[at] == 'u'
          std::uint32_t cp = 0;
          for (std::size_t k = 1; k <= 4; ++k)
            cp = cp * 16 + static_cast<std::uint32_t>(hex(s[at + k]));
          return cp;
        };
        std::uint32_t cp = code(i);
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 < s.size() && s[i + 1] == '\\' &&
            s[i + 2] == 'u') {
          const std::uint32_t lo = code(i + 2);
          if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          } else {
            cp = 0xFFFD;  // a high surrogate without its low half
          }
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
          cp = 0xFFFD;  // a lone surrogate
        }
        append_utf8(out, cp);
        break;
      }
      default:
        out += e;  // \" \\ \/
    }
  }
  return out;
}

// ---- values ----

Type Value::type() const { return doc_ ? doc_->nodes_[index_].type : Type::Null; }
bool Value::is_integer() const {
  return doc_ && doc_->nodes_[index_].type == Type::Number && doc_->nodes_[index_].flag;
}

std::string_view Value::raw() const {
  if (!doc_) return "null";
  const auto& n = doc_->nodes_[index_];
  return doc_->text_.substr(n.begin, n.end - n.begin);
}

std::string Value::string() const {
  const auto& n = doc_->nodes_[index_];
  const std::string_view body = doc_->text_.substr(n.begin + 1, n.end - n.begin - 2);
  return n.flag ? unescape(body) : std::string(body);
}

bool Value::boolean() const { return doc_->nodes_[index_].flag; }

bool Value::to_int64(std::int64_t& out) const {
  if (!is_integer()) return false;
  const std::string_view r = raw();
  const auto res = std::from_chars(r.data(), r.data() + r.size(), out);
  return res.ec == std::errc{} && res.ptr == r.data() + r.size();
}

double Value::number() const {
  const std::string_view r = raw();
  double d = 0;
  std::from_chars(r.data(), r.data() + r.size(), d);
  return d;
}

std::size_t Value::size() const { return doc_ ? doc_->nodes_[index_].count : 0; }

std::vector<Value::Member> Value::members() const {
  std::vector<Member> out;
  if (!is_object()) return out;
  out.reserve(size());
  for (std::uint32_t c = doc_->nodes_[index_].first; c != 0; c = doc_->nodes_[c].next) {
    const auto& n = doc_->nodes_[c];
    const std::string_view k = doc_->text_.substr(n.key_begin, n.key_end - n.key_begin);
    out.push_back({n.key_escaped ? unescape(k) : std::string(k), Value(doc_, c)});
  }
  return out;
}

std::vector<Value> Value::items() const {
  std::vector<Value> out;
  if (!is_array()) return out;
  out.reserve(size());
  for (std::uint32_t c = doc_->nodes_[index_].first; c != 0; c = doc_->nodes_[c].next)
    out.push_back(Value(doc_, c));
  return out;
}

Value Value::find(std::string_view key) const {
  if (!is_object()) return {};
  Value found;
  const std::uint32_t h = key_hash(key);
  for (std::uint32_t c = doc_->nodes_[index_].first; c != 0; c = doc_->nodes_[c].next) {
    const auto& n = doc_->nodes_[c];
    if (!n.key_escaped && n.key_hash != h) continue;
    const std::string_view k = doc_->text_.substr(n.key_begin, n.key_end - n.key_begin);
    if (n.key_escaped ? unescape(k) == key : k == key) found = Value(doc_, c);
  }
  return found;
}

// ---- writing ----

void Writer::comma() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

Writer& Writer::begin_object() {
  comma();
  out_ += '{';
  first_.push_back(true);
  return *this;
}
Writer& Writer::end_object() {
  out_ += '}';
  first_.pop_back();
  return *this;
}
Writer& Writer::begin_array() {
  comma();
  out_ += '[';
  first_.push_back(true);
  return *this;
}
Writer& Writer::end_array() {
  out_ += ']';
  first_.pop_back();
  return *this;
}
Writer& Writer::key(std::string_view k) {
  comma();
  put_string(k);
  out_ += ':';
  after_key_ = true;
  return *this;
}

Writer& Writer::string(std::string_view s) {
  comma();
  put_string(s);
  return *this;
}

// As nlohmann::json::dump(-1, ' ', false, error_handler_t::replace) prints a string: '"' and
// '\\' escaped, \b \f \n \r \t, other control characters as \u00xx; UTF-8 as is. Text that is not
// ASCII goes through nlohmann itself, so invalid UTF-8 is replaced exactly as it replaces it.
namespace {
// 0: copied as is; 1: escaped; 2: not ASCII (nlohmann prints the string).
constexpr std::array<std::uint8_t, 256> kStringClass = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = 1;
  t['"'] = 1;
  t['\\'] = 1;
  for (int c = 0x80; c < 256; ++c) t[c] = 2;
  return t;
}();
}  // namespace

void Writer::put_string(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::uint8_t any = 0;
  for (std::size_t i = 0; i < s.size(); ++i) any |= kStringClass[p[i]];
  if (any & 2) {
    out_ += nlohmann::json(std::string(s))
                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return;
  }
  out_ += '"';
  if (!any) {
    out_ += s;
    out_ += '"';
    return;
  }
  std::size_t run = 0;  // start of the characters not yet copied
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!kStringClass[p[i]]) continue;
    const char c = s[i];
    out_.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\b':
        out_ += "\\b";
        break;
      case '\f':
        out_ += "\\f";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\r':
        out_ += "\\r";
        break;
      case '\t':
        out_ += "\\t";
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char u[] = {'\\', 'u', '0', '0', kHex[(c >> 4) & 0xF], kHex[c & 0xF]};
        out_.append(u, sizeof u);
      }
    }
  }
  out_.append(s.data() + run, s.size() - run);
  out_ += '"';
}

Writer& Writer::integer(std::int64_t v) {
  comma();
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
  return *this;
}

// Doubles as nlohmann prints them (shortest text that reads back the same double).
Writer& Writer::number(double v) {
  comma();
  out_ += nlohmann::json(v).dump();
  return *this;
}

Writer& Writer::boolean(bool v) {
  comma();
  out_ += v ? "true" : "false";
  return *this;
}

Writer& Writer::null() {
  comma();
  out_ += "null";
  return *this;
}

Writer& Writer::raw(std::string_view json) {
  comma();
  out_ += json;
  return *this;
}

}  // namespace t9k::protocol::json
