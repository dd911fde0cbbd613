// model::CompactVector (model/compact_vector.hpp): a pod's command and args.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model/cluster.hpp"
#include "model/compact_vector.hpp"

namespace compact_vector_test {

using t9k::model::CompactVector;
using Strings = std::vector<std::string>;

TEST_CASE("compact vector: one pointer; empty holds no block and reads as an empty vector") {
  STATIC_REQUIRE(sizeof(CompactVector<std::string>) == sizeof(void*));
  CompactVector<std::string> v;
  CHECK(v.empty());
  CHECK(v.size() == 0);
  CHECK(v.vector().empty());
  CHECK(v.begin() == v.end());
  v = Strings{};  // an empty vector assigned is no block either
  CHECK(v.empty());
  CHECK(v == Strings{});
}

TEST_CASE("compact vector: reads, compares, copies and clears as a vector") {
  CompactVector<std::string> v = Strings{"torchrun", "train.py"};
  CHECK_FALSE(v.empty());
  CHECK(v.size() == 2);
  CHECK(v.front() == "torchrun");
  CHECK(v.back() == "train.py");
  CHECK(v[1] == "train.py");
  CHECK(v == Strings{"torchrun", "train.py"});
  const Strings& as_vector = v;
  CHECK(as_vector.size() == 2);

  auto copy = v;  // its own elements
  copy.push_back("--lr");
  CHECK(copy.size() == 3);
  CHECK(v.size() == 2);
  CHECK_FALSE(copy == v);

  v.clear();
  CHECK(v.empty());
  v.push_back("sleep");
  CHECK(v == Strings{"sleep"});
}

TEST_CASE("compact vector: a pod's command and args are compact") {
  t9k::model::Pod p;
  CHECK(p.command.empty());
  p.command = {"sleep", "inf"};
  p.args = Strings{};
  CHECK(p.command == Strings{"sleep", "inf"});
  CHECK(p.args.empty());
  t9k::model::Pod q = p;
  CHECK(q == p);
  q.args.push_back("--x");
  CHECK_FALSE(q == p);
}

}  // namespace compact_vector_test
