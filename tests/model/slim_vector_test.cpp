// model::SlimVector (model/slim_vector.hpp): the sequence inside Labels. Every operation is
// checked against std::vector doing the same, and an element whose copy throws leaves the vector
// as it was.
#include <catch2/catch.hpp>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/meta.hpp"
#include "model/slim_vector.hpp"

namespace slim_vector_test {

using t9k::model::SlimVector;

template <class T>
std::vector<T> as_vector(const SlimVector<T>& v) {
  return {v.begin(), v.end()};
}

TEST_CASE("slim vector: one pointer, and no block while empty") {
  STATIC_REQUIRE(sizeof(SlimVector<std::string>) == sizeof(void*));
  SlimVector<std::string> v;
  CHECK(v.empty());
  CHECK(v.capacity() == 0);
  CHECK(v.data() == nullptr);
  CHECK(v.begin() == v.end());
  v.push_back("a");
  CHECK(v.capacity() == 1);  // the first element takes a block of exactly one
  v.clear();
  CHECK(v.empty());
  CHECK(v.capacity() == 1);  // clear keeps the block, as std::vector's does
  v.shrink_to_fit();
  CHECK(v.capacity() == 0);
  CHECK(v.data() == nullptr);
}

TEST_CASE("slim vector: inserts, erases and copies as std::vector does") {
  // Random inserts (at the front, middle, end; one or several), erases and copies, long
  // strings so that a moved-from or doubly destroyed element would show.
  std::mt19937 rng(7);
  SlimVector<std::string> s;
  std::vector<std::string> v;
  for (int step = 0; step < 4000; ++step) {
    const std::size_t at = v.empty() ? 0 : rng() % (v.size() + 1);
    const std::string value = "value-long-enough-to-allocate-" + std::to_string(step);
    switch (rng() % 7) {
      case 0:
      case 1:
        s.insert(s.begin() + at, value);
        v.insert(v.begin() + at, value);
        break;
      case 2: {
        const std::vector<std::string> some{value, value + "b", value + "c"};
        s.insert(s.begin() + at, some.begin(), some.end());
        v.insert(v.begin() + at, some.begin(), some.end());
        break;
      }
      case 3:
        s.emplace(s.begin() + at, 3, 'x');
        v.emplace(v.begin() + at, 3, 'x');
        break;
      case 4:
        if (!v.empty()) {
          const std::size_t i = rng() % v.size();
          const std::size_t n = std::min<std::size_t>(rng() % 4, v.size() - i);
          s.erase(s.begin() + i, s.begin() + i + n);
          v.erase(v.begin() + i, v.begin() + i + n);
        }
        break;
      case 5: {
        SlimVector<std::string> copy = s;  // copy, then move back
        s = std::move(copy);
        break;
      }
      default:
        if (!v.empty() && rng() % 2 == 0) {
          s.pop_back();
          v.pop_back();
        } else {
          s.insert(s.begin() + at, s.empty() ? value : s[0]);  // an element of itself
          v.insert(v.begin() + at, v.empty() ? value : v[0]);
        }
    }
    REQUIRE(s.size() == v.size());
    REQUIRE(s.capacity() >= s.size());
    REQUIRE(as_vector(s) == v);
    if (v.size() > 200) {
      s.erase(s.begin() + 20, s.end());
      v.erase(v.begin() + 20, v.end());
    }
  }
  const SlimVector<std::string> copy = s;
  CHECK(copy == s);
  CHECK_FALSE(copy < s);
}

// Copies throw once `budget` copies have been made.
struct Fragile {
  static inline int budget = 1000;
  std::string value;
  explicit Fragile(std::string v) : value(std::move(v)) {}
  Fragile(const Fragile& o) : value(o.value) {
    if (--budget < 0) throw std::runtime_error("copy refused");
  }
  Fragile(Fragile&&) noexcept = default;
  Fragile& operator=(const Fragile&) = default;
  Fragile& operator=(Fragile&&) noexcept = default;
  bool operator==(const Fragile& o) const { return value == o.value; }
};

std::vector<std::string> values(const SlimVector<Fragile>& s) {  // without copying an element
  std::vector<std::string> out;
  for (const Fragile& f : s) out.push_back(f.value);
  return out;
}

TEST_CASE("slim vector: a copy that throws leaves the vector as it was") {
  SlimVector<Fragile> s;
  for (int i = 0; i < 5; ++i) s.push_back(Fragile("element-" + std::to_string(i)));
  const std::vector<std::string> before = values(s);
  const Fragile extra("an extra element with a long value");

  const std::vector<Fragile> three{extra, extra, extra};

  Fragile::budget = 0;
  CHECK_THROWS_AS(s.insert(s.begin() + 2, extra), std::runtime_error);
  CHECK(values(s) == before);

  Fragile::budget = 2;  // the third copy of a range throws
  CHECK_THROWS_AS(s.insert(s.end(), three.begin(), three.end()), std::runtime_error);
  CHECK(s.size() == before.size() + 2);  // as std::vector's, per element: those made stay

  Fragile::budget = 3;
  CHECK_THROWS_AS(SlimVector<Fragile>(s), std::runtime_error);  // frees what it made
  Fragile::budget = 1000;
}

TEST_CASE("slim vector: labels kept in one reads and orders as a map") {
  // Labels is a flat_map over a SlimVector: inserts by key in any order read back sorted, and
  // try_emplace / operator[] / erase behave as on the map it replaced.
  t9k::model::Labels labels;
  STATIC_REQUIRE(sizeof(t9k::model::Labels) == sizeof(void*));
  labels["zone"] = "b";
  labels["app"] = "trainer";
  labels.try_emplace("rack", "r1");
  CHECK_FALSE(labels.try_emplace("app", "other").second);
  labels.emplace("gpu", "a100");
  std::vector<std::string> keys;
  for (const auto& [k, v] : labels) keys.emplace_back(k.view());
  CHECK(keys == std::vector<std::string>{"app", "gpu", "rack", "zone"});
  CHECK(labels.at("app") == "trainer");
  labels.erase("gpu");
  CHECK(labels.size() == 3);
  CHECK(labels.find("gpu") == labels.end());
  const t9k::model::Labels copy = labels;
  CHECK(copy == labels);
  labels.clear();
  CHECK(labels.empty());
  CHECK(copy.size() == 3);
}

}  // namespace slim_vector_test
