#include "scenarios/format/detail/reader.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "kernel/hash.hpp"

namespace t9k::scenarios::detail {

namespace {

// Work allowed whatever the size: far above any hand-written scenario (the largest example
// visits a few thousand values), far below what an alias bomb asks for.
constexpr std::size_t kWorkBudget = 200'000;
// Plus this much per byte of the document. A value costs at most about two units of work (a
// mapping key and its value) and takes at least two bytes ("a: b", "[a,b]"), so a file without
// aliases never reaches the budget, however large (t9ksim import writes 80,000-job scenarios).
constexpr std::size_t kWorkPerByte = 2;
// A file with this many findings is not worth reading further.
constexpr std::size_t kMaxDiagnostics = 1000;

bool is_alnum_lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_alnum_lower(c) || (c >= 'A' && c <= 'Z'); }

}  // namespace

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::string child_path(const std::string& path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return fmt::format("{}.{}", path, key);
}

std::string index_path(const std::string& path, std::size_t i) {
  return fmt::format("{}[{}]", path, i);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string_view> candidates) {
  if (word.size() > 64) return std::nullopt;  // nobody mistypes a 64-letter field name
  const std::string w = lower(word);
  // A likely typo: one edit in short names, two in names of 6 letters or more (case ignored).
  const std::size_t limit = w.size() >= 6 ? 2 : 1;
  std::optional<std::string> best;
  std::size_t best_d = limit + 1;
  for (const auto c : candidates) {
    const std::size_t dist = edit_distance(w, lower(c));
    if (dist < best_d) {
      best_d = dist;
      best = std::string(c);
    }
  }
  return best;
}

std::string join_names(std::span<const std::string_view> names) {
  std::string r;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) r += ", ";
    r += names[i];
  }
  return r;
}

bool is_dns1123_label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!is_alnum_lower(s.front()) || !is_alnum_lower(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return is_alnum_lower(c) || c == '-'; });
}

bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    const std::string_view part =
        s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (!is_dns1123_label(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

namespace {
// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 characters.
bool is_name_part(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!is_alnum(s.front()) || !is_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}
}  // namespace

bool is_qualified_name(std::string_view s) {
  const std::size_t slash = s.find('/');
  if (slash == std::string_view::npos) return is_name_part(s);
  if (s.find('/', slash + 1) != std::string_view::npos) return false;
  return is_dns1123_subdomain(s.substr(0, slash)) && is_name_part(s.substr(slash + 1));
}

bool is_label_value(std::string_view s) { return s.empty() || is_name_part(s); }

void add_budget_diagnostic(std::vector<Diagnostic>& out, const std::string& file, int document,
                           int line) {
  if (!out.empty() && out.back().message.rfind("more than", 0) == 0) return;
  out.push_back(Diagnostic{Severity::Error, file, line, 1, document, "",
                           fmt::format("found a document that expands to too many values (counting "
                                       "aliases: more than {} plus {} per byte); allowed: fewer "
                                       "aliases (alias expansion bombs are refused)",
                                       kWorkBudget, kWorkPerByte)});
}

// ---- Report ----

std::size_t work_budget(std::size_t document_bytes) {
  return kWorkBudget + kWorkPerByte * document_bytes;
}

Report::Report(std::string file, std::vector<Diagnostic>& out, int document, std::size_t budget)
    : file_(std::move(file)), out_(out), document_(document), budget_(budget) {}

void Report::add(Severity s, const YAML::Mark* at, const std::string& path, std::string message) {
  if (out_.size() >= kMaxDiagnostics) {
    if (out_.size() == kMaxDiagnostics) {
      out_.push_back(Diagnostic{Severity::Error, file_, 0, 0, document_, "",
                                fmt::format("more than {} findings; stopping", kMaxDiagnostics)});
    }
    throw BudgetExceeded{};
  }
  Diagnostic d;
  d.severity = s;
  d.file = file_;
  d.document = document_;
  d.path = path;
  d.message = std::move(message);
  if (at != nullptr && !at->is_null()) {
    d.line = at->line + 1;
    d.column = at->column + 1;
  } else {
    // The nearest recorded parent position.
    std::string p = path;
    while (true) {
      const auto it = marks_.find(p);
      if (it != marks_.end()) {
        d.line = it->second.first;
        d.column = it->second.second;
        break;
      }
      if (p.empty()) break;
      const std::size_t cut = p.find_last_of(".[");
      p = cut == std::string::npos ? std::string() : p.substr(0, cut);
    }
  }
  if (s == Severity::Error) {
    ++errors_;
    error_paths_.insert(path);
  }
  out_.push_back(std::move(d));
}

void Report::error(const YAML::Mark& at, const std::string& path, std::string message) {
  add(Severity::Error, &at, path, std::move(message));
}
void Report::warning(const YAML::Mark& at, const std::string& path, std::string message) {
  add(Severity::Warning, &at, path, std::move(message));
}
void Report::note(const YAML::Mark& at, const std::string& path, std::string message) {
  add(Severity::Note, &at, path, std::move(message));
}
void Report::error(const std::string& path, std::string message) {
  if (blocked(path)) return;
  add(Severity::Error, nullptr, path, std::move(message));
}
void Report::warning(const std::string& path, std::string message) {
  add(Severity::Warning, nullptr, path, std::move(message));
}

void Report::record(const std::string& path, const YAML::Mark& at) {
  if (!at.is_null()) marks_.emplace(path, std::make_pair(at.line + 1, at.column + 1));
}

bool Report::blocked(const std::string& path) const {
  std::string p = path;
  while (true) {
    if (error_paths_.count(p)) return true;
    if (p.empty()) return false;
    const std::size_t cut = p.find_last_of(".[");
    p = cut == std::string::npos ? std::string() : p.substr(0, cut);
  }
}

bool Report::has_error_under(const std::string& path) const {
  for (auto it = error_paths_.lower_bound(path); it != error_paths_.end(); ++it) {
    if (it->compare(0, path.size(), path) != 0) break;
    if (it->size() == path.size() || (*it)[path.size()] == '.' || (*it)[path.size()] == '[')
      return true;
  }
  return false;
}

void Report::tick() {
  if (++work_ > budget_) throw BudgetExceeded{};
}

// ---- values ----

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "null";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a sequence";
  std::string s = node.Scalar();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  if (node.Tag() == "?") return s;
  return fmt::format("\"{}\"", s);
}

MapReader::MapReader(Report& r, const Val& v, std::span<const std::string_view> known,
                     std::span<const std::string_view> accepted, Severity unknown_severity)
    : self_(v) {
  r.tick();
  r.record(v.path, v.mark);
  if (!v.present()) {
    ok_ = true;  // absent: every field takes its default
    return;
  }
  if (!v.node.IsMap()) {
    r.error(v.mark, v.path, fmt::format("found {}; allowed: a mapping", describe(v.node)));
    return;
  }
  ok_ = true;
  for (auto it = v.node.begin(); it != v.node.end(); ++it) {
    r.tick();
    const YAML::Node key = it->first;
    if (!key.IsScalar()) {
      r.error(key.Mark(), v.path,
              fmt::format("found a key that is {}; allowed: field names", describe(key)));
      continue;
    }
    const std::string name = key.Scalar();
    const std::string path = child_path(v.path, name);
    if (std::any_of(entries_.begin(), entries_.end(),
                    [&](const auto& e) { return e.first == name; })) {
      r.error(key.Mark(), path, fmt::format("duplicate field \"{}\"", name));
      continue;
    }
    const bool is_known = std::find(known.begin(), known.end(), name) != known.end();
    const bool is_accepted = std::find(accepted.begin(), accepted.end(), name) != accepted.end();
    if (!is_known && !is_accepted) {
      std::vector<std::string_view> all(known.begin(), known.end());
      all.insert(all.end(), accepted.begin(), accepted.end());
      const auto hint = closest_match(name, all);
      std::string msg = fmt::format("unknown field \"{}\"", name);
      if (hint) {
        msg += fmt::format("; did you mean \"{}\"?", *hint);
        if (unknown_severity == Severity::Error) r.block(child_path(v.path, *hint));
      } else if (all.size() <= 12) {
        msg += fmt::format("; allowed: {}", join_names(all));
      }
      if (unknown_severity == Severity::Error) {
        r.error(key.Mark(), path, msg);
      } else {
        r.warning(key.Mark(), path, msg + " (not a Kubernetes field; ignored)");
      }
      continue;
    }
    entries_.emplace_back(name, Val{it->second, key.Mark(), path});
    r.record(path, key.Mark());
  }
}

bool MapReader::has(std::string_view key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return v.present();
  }
  return false;
}

Val MapReader::get(std::string_view key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return v;
  }
  return Val{YAML::Node(), self_.mark, child_path(self_.path, key)};
}

FreeMap::FreeMap(Report& r, const Val& v, std::span<const std::string_view> structured) {
  r.tick();
  r.record(v.path, v.mark);
  if (!v.present()) return;
  if (!v.node.IsMap()) {
    r.error(v.mark, v.path, fmt::format("found {}; allowed: a mapping", describe(v.node)));
    return;
  }
  std::set<std::string> seen;  // a free map may be large (labels): no quadratic duplicate check
  for (auto it = v.node.begin(); it != v.node.end(); ++it) {
    r.tick();
    const YAML::Node key = it->first;
    if (!key.IsScalar()) {
      r.error(key.Mark(), v.path,
              fmt::format("found a key that is {}; allowed: scalar keys", describe(key)));
      continue;
    }
    const std::string name = key.Scalar();
    const std::string path = child_path(v.path, name);
    if (!seen.insert(name).second) {
      r.error(key.Mark(), path, fmt::format("duplicate key \"{}\"", name));
      continue;
    }
    Val val{it->second, key.Mark(), path};
    const bool may_nest = std::find(structured.begin(), structured.end(), name) != structured.end();
    if (!may_nest && val.node.IsDefined() && !val.node.IsNull() && !val.node.IsScalar()) {
      r.error(key.Mark(), path, fmt::format("found {}; allowed: a string", describe(val.node)));
      continue;
    }
    r.record(path, key.Mark());
    entries_.emplace_back(name, std::move(val));
  }
}

std::vector<Val> read_list(Report& r, const Val& v) {
  std::vector<Val> out;
  r.tick();
  r.record(v.path, v.mark);
  if (!v.present()) return out;
  if (!v.node.IsSequence()) {
    r.error(v.mark, v.path, fmt::format("found {}; allowed: a sequence", describe(v.node)));
    return out;
  }
  std::size_t i = 0;
  for (auto it = v.node.begin(); it != v.node.end(); ++it, ++i) {
    r.tick();
    const YAML::Node item = *it;
    const YAML::Mark mark = item.Mark().is_null() ? v.mark : item.Mark();
    const std::string path = index_path(v.path, i);
    r.record(path, mark);
    out.push_back(Val{item, mark, path});
  }
  return out;
}

namespace {
bool scalar_or_report(Report& r, const Val& v, std::string_view what) {
  if (!v.present()) return false;
  if (!v.node.IsScalar()) {
    r.error(v.mark, v.path, fmt::format("found {}; allowed: {}", describe(v.node), what));
    return false;
  }
  return true;
}

// A plain (unquoted) scalar, or one tagged with a core-schema tag: YAML's typed literals.
bool is_plain(const YAML::Node& n) {
  return n.Tag() == "?" || n.Tag().rfind("tag:yaml.org,2002:", 0) == 0;
}

// A plain scalar of decimal digits with an optional sign, or nullopt. Values far beyond 64 bits
// stop growing (still out of any range), so no digit string overflows.
std::optional<kernel::Int128> plain_integer(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (!is_plain(n) || s.empty()) return std::nullopt;
  const bool neg = s[0] == '-';
  std::size_t i = (neg || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  kernel::Int128 value = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    if (value < (kernel::Int128{1} << 80)) value = value * 10 + (s[i] - '0');
  }
  return neg ? -value : value;
}
}  // namespace

std::optional<std::string> read_string(Report& r, const Val& v) {
  r.tick();
  if (!scalar_or_report(r, v, "a string")) return std::nullopt;
  return v.node.Scalar();
}

std::optional<std::int64_t> read_int(Report& r, const Val& v, std::int64_t min, std::int64_t max,
                                     std::string_view rule) {
  r.tick();
  std::string allowed;
  if (min == std::numeric_limits<std::int64_t>::min() || min == INT32_MIN) {
    allowed = max == INT32_MAX || max == std::numeric_limits<std::int64_t>::max()
                  ? "an integer"
                  : fmt::format("an integer <= {}", max);
  } else if (max == INT32_MAX || max == std::numeric_limits<std::int64_t>::max()) {
    allowed = min == 1 ? "an integer > 0" : fmt::format("an integer >= {}", min);
  } else {
    allowed = fmt::format("an integer in [{}, {}]", min, max);
  }
  if (!rule.empty()) allowed += fmt::format(" ({})", rule);
  if (!scalar_or_report(r, v, allowed)) return std::nullopt;
  const auto parsed = plain_integer(v.node);
  const bool ok = parsed.has_value();
  const kernel::Int128 value = parsed.value_or(0);
  if (!ok || value < min || value > max) {
    // A number out of range is told both bounds, so the message never calls a number "an
    // integer >= 0" that is one.
    const bool unbounded_min = min == std::numeric_limits<std::int64_t>::min() || min == INT32_MIN;
    if (ok && (value > max || unbounded_min))
      allowed = fmt::format("an integer in [{}, {}]{}", min, max,
                            rule.empty() ? "" : fmt::format(" ({})", rule));
    r.error(v.mark, v.path, fmt::format("found {}; allowed: {}", describe(v.node), allowed));
    return std::nullopt;
  }
  return static_cast<std::int64_t>(value);
}

std::optional<std::uint64_t> read_uint64(Report& r, const Val& v) {
  r.tick();
  const std::string allowed = "an integer in [0, 18446744073709551615]";
  if (!scalar_or_report(r, v, allowed)) return std::nullopt;
  const auto value = plain_integer(v.node);
  if (!value || *value < 0 || *value > kernel::Int128{std::numeric_limits<std::uint64_t>::max()}) {
    r.error(v.mark, v.path, fmt::format("found {}; allowed: {}", describe(v.node), allowed));
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(*value);
}

std::optional<std::int32_t> read_int32(Report& r, const Val& v, std::int64_t min, std::int64_t max,
                                       std::string_view rule) {
  const auto x = read_int(r, v, min, max, rule);
  if (!x) return std::nullopt;
  return static_cast<std::int32_t>(*x);
}

std::optional<double> read_double(Report& r, const Val& v, double min, double max) {
  r.tick();
  constexpr double kMax = std::numeric_limits<double>::max();
  const std::string allowed = min == -kMax && max == kMax
                                  ? std::string("a finite decimal number (no nan or inf)")
                              : max == kMax ? fmt::format("a number >= {}", min)
                                            : fmt::format("a number in [{}, {}]", min, max);
  if (!scalar_or_report(r, v, allowed)) return std::nullopt;
  const std::string& s = v.node.Scalar();
  // Decimal notation only: [sign] digits [. digits] [e [sign] digits]; no inf, nan or hex.
  std::size_t i = 0;
  bool ok = is_plain(v.node) && !s.empty() && s.size() <= 64;
  if (ok && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t digits = 0;
  while (ok && i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (ok && i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0) ok = false;
  if (ok && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t e = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++e;
    if (e == 0 || e > 3) ok = false;
  }
  if (i != s.size()) ok = false;
  double value = 0;
  if (ok) {
    value = std::strtod(s.c_str(), nullptr);
    ok = value >= min && value <= max;
  }
  if (!ok) {
    r.error(v.mark, v.path, fmt::format("found {}; allowed: {}", describe(v.node), allowed));
    return std::nullopt;
  }
  return value;
}

std::optional<bool> read_bool(Report& r, const Val& v) {
  r.tick();
  if (!scalar_or_report(r, v, "true or false")) return std::nullopt;
  const std::string& s = v.node.Scalar();
  if (is_plain(v.node)) {
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  r.error(v.mark, v.path, fmt::format("found {}; allowed: true or false", describe(v.node)));
  return std::nullopt;
}

std::optional<model::Quantity> read_quantity(Report& r, const Val& v, bool allow_negative) {
  r.tick();
  if (!scalar_or_report(r, v, "a quantity such as 500m, 2, 4Gi")) return std::nullopt;
  try {
    const auto q = model::Quantity::parse(v.node.Scalar());
    if (!allow_negative && q.milli() < 0) {
      r.error(v.mark, v.path, fmt::format("found {}; allowed: a quantity >= 0", describe(v.node)));
      return std::nullopt;
    }
    return q;
  } catch (const model::QuantityError& e) {
    r.error(v.mark, v.path, e.what());
    return std::nullopt;
  }
}

std::optional<kernel::SimDuration> read_duration(Report& r, const Val& v) {
  r.tick();
  if (!scalar_or_report(r, v, "a duration such as 90s, 2h45m, 500ms")) return std::nullopt;
  try {
    return kernel::parse_duration(v.node.Scalar());
  } catch (const kernel::DurationError& e) {
    r.error(v.mark, v.path, e.what());
    return std::nullopt;
  }
}

std::optional<std::vector<std::string>> read_string_list(Report& r, const Val& v) {
  r.tick();
  if (!v.present()) return std::nullopt;
  if (!v.node.IsSequence()) {
    r.error(v.mark, v.path,
            fmt::format("found {}; allowed: a sequence of strings", describe(v.node)));
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (const Val& item : read_list(r, v)) {
    if (!item.node.IsDefined() || !item.node.IsScalar()) {
      r.error(item.mark, item.path,
              fmt::format("found {}; allowed: a string", describe(item.node)));
      ok = false;
      continue;
    }
    out.push_back(item.node.Scalar());
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::string> read_choice(Report& r, const Val& v,
                                       std::span<const std::string_view> allowed) {
  const auto s = read_string(r, v);
  if (!s) return std::nullopt;
  if (std::find(allowed.begin(), allowed.end(), *s) != allowed.end()) return s;
  std::string msg = fmt::format("found \"{}\"; allowed: {}", *s, join_names(allowed));
  if (const auto hint = closest_match(*s, allowed))
    msg += fmt::format(" (did you mean \"{}\"?)", *hint);
  r.error(v.mark, v.path, msg);
  return std::nullopt;
}

bool require(Report& r, const Val& v) {
  if (v.present()) return true;
  if (r.blocked(v.path)) return false;
  r.error(v.mark, v.path, "required field is missing");
  return false;
}

}  // namespace t9k::scenarios::detail
