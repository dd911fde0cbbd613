// Object keys and numbered names (model/meta.hpp): the strings every index of the world is
// keyed by, and the uids and sources built for every job and pod.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "model/meta.hpp"

using t9k::model::is_key_of;
using t9k::model::numbered;
using t9k::model::object_key;
using t9k::model::ObjectMeta;

TEST_CASE("object_key: namespace/name, or the name alone without a namespace", "[model][keys]") {
  CHECK(object_key("default", "train-worker-0") == "default/train-worker-0");
  CHECK(object_key("", "train") == "train");
  ObjectMeta m;
  m.namespace_ = "team-a";
  m.name = "job";
  CHECK(object_key(m) == "team-a/job");
}

TEST_CASE("is_key_of agrees with object_key without building the key", "[model][keys]") {
  struct Row {
    const char* ns;
    const char* name;
    const char* key;
    bool match;
  };
  const Row rows[] = {
      {"default", "a-worker-0", "default/a-worker-0", true},
      {"default", "a-worker-0", "default/a-worker-1", false},
      {"default", "a-worker-0", "other/a-worker-0", false},
      {"default", "a-worker-0", "default-a-worker-0", false},  // the separator is checked
      {"default", "a-worker-0", "default/a-worker-0x", false},
      {"default", "a-worker-0", "a-worker-0", false},
      {"", "a-worker-0", "a-worker-0", true},
      {"", "a-worker-0", "/a-worker-0", false},
      {"de", "fault/x", "de/fault/x", true},  // whatever object_key builds, is_key_of matches
  };
  for (const auto& r : rows) {
    ObjectMeta m;
    m.namespace_ = r.ns;
    m.name = r.name;
    INFO(r.ns << " " << r.name << " vs " << r.key);
    CHECK(is_key_of(m, r.key) == r.match);
    CHECK(is_key_of(m, r.key) == (object_key(m) == r.key));
  }
}

TEST_CASE("numbered writes what fmt::format(\"{}{}\") writes", "[model][keys]") {
  for (const std::int64_t n :
       {std::int64_t{0}, std::int64_t{7}, std::int64_t{-3}, std::int64_t{1234567890123},
        std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
    INFO(n);
    CHECK(numbered("pod-", n) == fmt::format("pod-{}", n));
    CHECK(numbered("", n) == fmt::format("{}", n));
  }
  CHECK(numbered("philly.csv:", 42) == "philly.csv:42");
}
