// The first difference between two answers as JSON (differential testing, docs/plugins.md): where
// two controllers or policies answered the same observation differently.
#include <fmt/format.h>

#include "protocol/json.hpp"
#include "protocol/protocol.hpp"

namespace t9k::protocol {

namespace {

using json::Type;
using json::Value;

// Depth first, keys in the order of `a` then those only in `b`, items in order.
std::optional<Difference> first(const Value& a, const Value& b, const std::string& path) {
  const bool a_here = a.present(), b_here = b.present();
  if (!a_here || !b_here || a.type() != b.type()) {
    return Difference{path, a_here ? std::string(a.raw()) : "(absent)",
                      b_here ? std::string(b.raw()) : "(absent)"};
  }
  if (a.type() == Type::Object) {
    const auto am = a.members();
    for (const auto& m : am) {
      if (auto d = first(m.value, b.find(m.key), path + "." + m.key)) return d;
    }
    for (const auto& m : b.members()) {
      if (!a.find(m.key).present())
        return Difference{path + "." + m.key, "(absent)", std::string(m.value.raw())};
    }
    return std::nullopt;
  }
  if (a.type() == Type::Array) {
    const auto ai = a.items(), bi = b.items();
    for (std::size_t i = 0; i < std::max(ai.size(), bi.size()); ++i) {
      const Value x = i < ai.size() ? ai[i] : Value{};
      const Value y = i < bi.size() ? bi[i] : Value{};
      if (auto d = first(x, y, fmt::format("{}[{}]", path, i))) return d;
    }
    return std::nullopt;
  }
  if (a.raw() != b.raw()) return Difference{path, std::string(a.raw()), std::string(b.raw())};
  return std::nullopt;
}

}  // namespace

std::optional<Difference> first_difference(std::string_view a, std::string_view b,
                                           const std::string& root) {
  const auto da = json::Document::parse(a, "the first value");
  const auto db = json::Document::parse(b, "the second value");
  return first(da.root(), db.root(), root);
}

}  // namespace t9k::protocol
