// model::Shared (model/shared.hpp): job specs' pod templates, shared by copies until edited.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model/jobs.hpp"
#include "model/shared.hpp"

namespace shared_test {

using t9k::model::PodTemplateSpec;
using t9k::model::Shared;

TEST_CASE("shared: copies share one value; an edit gives the edited copy its own") {
  Shared<std::vector<int>> a(std::vector<int>{1, 2, 3});
  const Shared<std::vector<int>> b = a;
  CHECK(a.shares_with(b));
  CHECK(a.get() == b.get());
  a.edit().push_back(4);  // shared: copied first
  CHECK_FALSE(a.shares_with(b));
  CHECK(*a == std::vector<int>{1, 2, 3, 4});
  CHECK(*b == std::vector<int>{1, 2, 3});  // the other copy is untouched
  const auto* before = a.get();
  a.edit().push_back(5);  // held alone: edited in place
  CHECK(a.get() == before);
  CHECK(a->size() == 5);
}

TEST_CASE("shared: a moved-from copy reads as a default value") {
  Shared<std::string> a(std::string("template"));
  const Shared<std::string> b = std::move(a);
  CHECK(*b == "template");
  CHECK(a->empty());  // NOLINT(bugprone-use-after-move): what the test is about
  CHECK(a.shares_with(Shared<std::string>{}));
  a.edit() = "again";  // gets a value of its own
  CHECK(*a == "again");
  Shared<std::string> c;
  c = std::move(a);
  CHECK(*c == "again");
  CHECK(a->empty());  // NOLINT(bugprone-use-after-move)
}

TEST_CASE("shared: default values share one instance; equality is the values'") {
  const Shared<std::string> x, y;
  CHECK(x.shares_with(y));  // no allocation per default value
  CHECK(x->empty());
  Shared<std::string> z;
  z.edit() = "edited";  // the shared default is not changed
  CHECK(x->empty());
  CHECK(*z == "edited");
  const Shared<std::string> w(std::string("edited"));
  CHECK_FALSE(z.shares_with(w));
  CHECK(z == w);  // equal values, not the same one
  CHECK_FALSE(z == x);
  z = std::string("assigned");
  CHECK(*z == "assigned");
}

TEST_CASE("shared: a copied job shares its template; editing one job's leaves the other's") {
  t9k::model::GenericJob a;
  auto& rs = a.spec.replica_specs.emplace_back();
  rs.type = "worker";
  PodTemplateSpec t;
  t.spec.containers.emplace_back().image = "train:1";
  rs.template_ = t;
  t9k::model::GenericJob b = a;
  CHECK(b.spec.replica_specs[0].template_.shares_with(a.spec.replica_specs[0].template_));
  CHECK(a == b);
  b.spec.replica_specs[0].template_.edit().spec.containers[0].image = "train:2";
  CHECK(a.spec.replica_specs[0].template_->spec.containers[0].image == "train:1");
  CHECK_FALSE(a == b);
}

TEST_CASE("recent values: an equal value made again shares the kept one, while it is kept") {
  t9k::model::RecentValues<std::string, 2> recent;
  const auto a = recent.share("a");
  CHECK(recent.share("a").shares_with(a));
  const auto b = recent.share("b");
  CHECK_FALSE(b.shares_with(a));
  CHECK(recent.share("a").shares_with(a));  // used again: now the most recent
  recent.share("c");                        // two kept: "b", the least recent, goes
  CHECK(recent.share("a").shares_with(a));
  const auto b2 = recent.share("b");
  CHECK(*b2 == "b");
  CHECK_FALSE(b2.shares_with(b));  // made anew
}

TEST_CASE("recent values: a value held already is kept as it is, or given the kept equal one") {
  t9k::model::RecentValues<std::string, 2> recent;
  const Shared<std::string> held(std::string("a"));
  CHECK(recent.share(held).shares_with(held));  // kept without a copy of the value
  const Shared<std::string> equal(std::string("a"));
  const auto got = recent.share(equal);
  CHECK(got.shares_with(held));
  CHECK_FALSE(got.shares_with(equal));
}

TEST_CASE("shared: or_default keeps a default value as the shared default, others their own") {
  using t9k::model::RunMode;
  const Shared<RunMode> fresh;
  const auto plain = Shared<RunMode>::or_default(RunMode{});
  CHECK(plain.shares_with(fresh));  // no allocation for the value nearly every job has
  RunMode debug;
  debug.debug.enabled = true;
  const auto own = Shared<RunMode>::or_default(debug);
  CHECK_FALSE(own.shares_with(fresh));
  CHECK(own->debug.enabled);
  // A job's run mode: the store pauses one job without touching another's.
  t9k::model::GenericJob a;
  t9k::model::GenericJob b = a;
  a.spec.run_mode.edit().pause.enabled = true;
  CHECK(a.spec.run_mode->pause.enabled);
  CHECK_FALSE(b.spec.run_mode->pause.enabled);
  CHECK_FALSE(fresh->pause.enabled);  // the shared default is never edited
}

}  // namespace shared_test

TEST_CASE("recent values of Text: an equal text made again shares the kept one's characters") {
  t9k::model::RecentValues<t9k::model::Text, 2, t9k::model::Text> recent;
  const std::string long_message = "0/813 nodes are available: 813 insufficient nvidia.com/gpu";
  const t9k::model::Text a = recent.share(long_message);
  const t9k::model::Text again = recent.share(long_message);
  CHECK(again == a);
  CHECK(again.view().data() == a.view().data());  // one block, not a copy of the characters
  recent.share("b");
  recent.share("c");  // two kept: the message, the least recent, goes
  const t9k::model::Text anew = recent.share(long_message);
  CHECK(anew == a);
  CHECK(anew.view().data() != a.view().data());  // made anew
}

TEST_CASE("owner references: copies share the list until one is changed") {
  t9k::model::OwnerReferences a{{"batch.tensorstack.dev/v1beta1", "GenericJob", "j", "u-1", true}};
  const t9k::model::OwnerReferences b = a;
  CHECK(b.shares_with(a));
  a.push_back({"v1", "Node", "n", "u-2", false});
  CHECK_FALSE(b.shares_with(a));
  REQUIRE(a.size() == 2);
  REQUIRE(b.size() == 1);
  CHECK(b[0].name == "j");
  CHECK(a[1].kind == "Node");
  CHECK(t9k::model::OwnerReferences{}.empty());
  CHECK(b == t9k::model::OwnerReferences{
                 {"batch.tensorstack.dev/v1beta1", "GenericJob", "j", "u-1", true}});
}

TEST_CASE("shared: one pointer, its count in the value's block") {
  // 8 bytes in every pod's owner references and every job's template and run mode (issue 49).
  STATIC_REQUIRE(sizeof(t9k::model::Shared<std::vector<int>>) == sizeof(void*));
  t9k::model::Shared<std::vector<int>> a(std::vector<int>{1, 2});
  const std::vector<int>* held = a.get();
  {
    const auto b = a;  // NOLINT(performance-unnecessary-copy-initialization): a second holder
    CHECK(b.shares_with(a));
  }
  a.edit().push_back(3);  // its only holder again: edited in place, not copied
  CHECK(a.get() == held);
  CHECK(*a == std::vector<int>{1, 2, 3});
}
