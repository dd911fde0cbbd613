// A small JSON reader and writer for the protocol's hot path (protocol/ internal). The reader
// parses a message once into a flat array of values that point into the text (no allocation per
// value, and each value's source text is at hand, which is how a server keys its cache of decoded
// job specs); strings are unescaped only when read. The writer appends to a string and prints
// what nlohmann::json's dump() prints for the same values (same escapes, shortest round-trip
// numbers), so both encoders of one object give the same bytes (tested).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace t9k::protocol::json {

enum class Type : std::uint8_t { Null, Boolean, Number, String, Array, Object };

class Document;

// One value of a document (cheap to copy; valid while the document lives).
class Value {
 public:
  Value() = default;  // absent (present() is false; its type reads as Null)
  Type type() const;
  bool is_null() const { return type() == Type::Null; }
  bool is_object() const { return type() == Type::Object; }
  bool is_array() const { return type() == Type::Array; }
  bool is_string() const { return type() == Type::String; }
  bool is_number() const { return type() == Type::Number; }
  bool is_boolean() const { return type() == Type::Boolean; }
  bool is_integer() const;  // a number written without fraction or exponent

  std::string_view raw() const;            // the value's text as written
  std::string string() const;              // precondition: is_string(); unescaped
  bool boolean() const;                    // precondition: is_boolean()
  bool to_int64(std::int64_t& out) const;  // false when not an integer or out of range
  double number() const;                   // precondition: is_number()

  // Object members in order; arrays' items in order.
  struct Member;
  std::vector<Member> members() const;
  std::vector<Value> items() const;
  std::size_t size() const;  // members or items
  // The member of that key (the last if repeated), or a null-typed "absent" value.
  Value find(std::string_view key) const;
  bool present() const { return doc_ != nullptr; }

 private:
  friend class Document;
  Value(const Document* doc, std::uint32_t index) : doc_(doc), index_(index) {}
  const Document* doc_ = nullptr;
  std::uint32_t index_ = 0;
};

struct Value::Member {
  std::string key;  // unescaped
  Value value;
};

class Document {
 public:
  // Throws ProtocolError ("<what>: not JSON (<reason> at byte N)"). `text` must outlive it.
  static Document parse(std::string_view text, std::string_view what);
  Value root() const { return Value(this, 0); }
  Document(Document&&) noexcept = default;
  Document& operator=(Document&&) noexcept = default;

 private:
  Document() = default;
  friend class Value;
  friend class Parser;
  struct Node {
    Type type = Type::Null;
    bool flag = false;        // Boolean: its value; String: has escapes; Number: is an integer
    std::uint32_t begin = 0;  // source range of the value
    std::uint32_t end = 0;
    std::uint32_t key_begin = 0, key_end = 0;  // object member: the key's text between quotes
    std::uint32_t key_hash = 0;                // of that text: find() compares hashes first
    bool key_escaped = false;
    std::uint32_t first = 0;  // Array/Object: first child (0: none; the root is never a child)
    std::uint32_t next = 0;   // next sibling (0: last)
    std::uint32_t count = 0;  // children
  };
  std::string_view text_;
  std::vector<Node> nodes_;
};

// Unescapes the text between a string's quotes.
std::string unescape(std::string_view escaped);

// Appends JSON to a string, printing as nlohmann::json::dump() does (compact).
class Writer {
 public:
  std::string& out() { return out_; }
  std::string take() { return std::move(out_); }

  Writer& begin_object();
  Writer& end_object();
  Writer& begin_array();
  Writer& end_array();
  Writer& key(std::string_view k);
  Writer& string(std::string_view s);
  Writer& integer(std::int64_t v);
  Writer& number(double v);
  Writer& boolean(bool v);
  Writer& null();
  Writer& raw(std::string_view json);  // already-encoded JSON text as one value

 private:
  void comma();
  void put_string(std::string_view s);
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace t9k::protocol::json
