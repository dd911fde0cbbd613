#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis/detail/report.hpp"
#include "analysis/outputs.hpp"
#include "analysis/progress.hpp"
#include "analysis/report.hpp"
#include "analysis/report_assets.hpp"
#include "tests/analysis/fixture.hpp"

namespace fs = std::filesystem;
using namespace t9k::analysis;

namespace {

// What was written to a temporary file; closes it.
std::string text(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
  std::fclose(f);
  return s;
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Written once per process, removed at exit.
struct FixtureTree {
  fs::path dir = fs::temp_directory_path() / ("t9ksim-report-test-" + std::to_string(::getpid()));
  FixtureTree() {
    fs::remove_all(dir);
    t9k::testing::write_fixture_tree(dir);
  }
  ~FixtureTree() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

fs::path fixture_tree() {
  static const FixtureTree tree;
  return tree.dir;
}

}  // namespace

TEST_CASE("html_escape and script_safe_json", "[report]") {
  CHECK(html_escape("<img src=x onerror=\"a('b')\">&") ==
        "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;");
  CHECK(script_safe_json(R"({"a":"</script><b>&"})") ==
        R"({"a":"\u003c/script\u003e\u003cb\u003e\u0026"})");
  CHECK(script_safe_json("\"x\xE2\x80\xA8y\xE2\x80\xA9z\xE2\x80\xA6\"") ==
        "\"x\\u2028y\\u2029z\xE2\x80\xA6\"");
}

TEST_CASE("the JavaScript bundles are compiled in", "[report]") {
  CHECK(assets::vega_js().size() > 100000);
  CHECK(assets::vega_lite_js().size() > 100000);
  CHECK(assets::vega_embed_js().size() > 10000);
  CHECK(assets::vega_embed_js().find("vegaEmbed") != std::string_view::npos);
}

TEST_CASE("report.html escapes hostile names in every context", "[report]") {
  for (const char* kind : {"run", "reps", "compare"}) {
    INFO(kind);
    const std::string html = read(fixture_tree() / kind / "report.html");
    REQUIRE(!html.empty());
    // The only script elements are ours: three bundles, the data and the main script.
    CHECK(count(html, "<script") == 5);
    CHECK(count(html, "</script") == 5);
    CHECK(html.find(t9k::testing::kHostileJob) == std::string::npos);
    CHECK(html.find(t9k::testing::kHostileQueue) == std::string::npos);
    CHECK(html.find("alert(2)</") == std::string::npos);
    // HTML contexts: the job (longest-waits table, title) as entities.
    CHECK(html.find("&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
    // JSON inside <script>: \u escapes.
    CHECK(html.find("\\u003cimg src=x onerror=alert(1)\\u003e") != std::string::npos);
    CHECK(html.find("\\u003c/script\\u003e\\u003cscript\\u003ealert(2)") != std::string::npos);
    // No network at view time: nothing loads from elsewhere.
    CHECK(html.find("src=\"http") == std::string::npos);
    CHECK(html.find("<link") == std::string::npos);
  }
}

// Does any encoding channel of the spec (views, layers, concatenations) draw the variant?
bool encodes_variant(const nlohmann::json& spec) {
  if (spec.is_object()) {
    if (const auto e = spec.find("encoding"); e != spec.end() && e->is_object())
      for (const auto& [channel, def] : e->items())
        if (channel != "tooltip" && channel != "y" && def.is_object() &&
            def.value("field", "") == "variant")
          return true;
    for (const auto& [_, v] : spec.items())
      if (encodes_variant(v)) return true;
  } else if (spec.is_array()) {
    for (const auto& v : spec)
      if (encodes_variant(v)) return true;
  }
  return false;
}

TEST_CASE("charts tell variants apart only when there are several (issue 48)", "[report]") {
  for (const char* folder : {"run", "reps", "compare"}) {
    const ReportInput in = load_report_input(fixture_tree() / folder);
    const bool several = std::string(folder) == "compare";
    bool any = false;
    for (const auto& chart : detail::build_charts(in)) {
      INFO(folder << ": " << chart.title);
      if (!several) CHECK_FALSE(encodes_variant(chart.spec));
      any = any || encodes_variant(chart.spec);
    }
    CHECK(any == several);
  }
}

// Issue 48: a week-long run's time axes in days, not hours since 0; a short run's in hours.
TEST_CASE("charts over time: axes in days beyond two days", "[report]") {
  struct Row {
    double horizon_s;
    const char* title;
    std::vector<int> ticks;  // empty: Vega-Lite's own
  };
  for (const Row& r : {Row{18000, "time (h)", {}},
                       Row{7 * 86400, "time (days)", {0, 24, 48, 72, 96, 120, 144, 168}},
                       Row{60 * 86400,
                           "time (days)",
                           {0, 120, 240, 360, 480, 600, 720, 840, 960, 1080, 1200, 1320, 1440}}}) {
    ReportInput in = load_report_input(fixture_tree() / "run");
    in.variants.front().sample.horizon_s = r.horizon_s;
    int checked = 0;
    for (const auto& chart : detail::build_charts(in)) {
      if (chart.title != "Allocated and productive GPUs over time" &&
          chart.title != "Pending jobs per queue over time")
        continue;
      INFO(chart.title << " over " << r.horizon_s << " s");
      const auto& x = chart.spec.at("encoding").at("x");
      CHECK(x.at("title") == r.title);
      if (r.ticks.empty()) {
        CHECK_FALSE(x.contains("axis"));
      } else {
        CHECK(x.at("axis").at("values").get<std::vector<int>>() == r.ticks);
        CHECK(x.at("axis").at("labelExpr") == "datum.value / 24");
      }
      ++checked;
    }
    CHECK(checked == 2);
  }
}

TEST_CASE("report.html has every chart for its kind", "[report]") {
  const std::string run = read(fixture_tree() / "run" / "report.html");
  const std::string reps = read(fixture_tree() / "reps" / "report.html");
  const std::string cmp = read(fixture_tree() / "compare" / "report.html");
  CHECK(count(run, "data-chart=") == 10);
  CHECK(count(reps, "data-chart=") == 10);
  CHECK(count(cmp, "data-chart=") == 12);
  for (const char* title :
       {"Allocated and productive GPUs over time", "Pending jobs per queue over time",
        "Why jobs waited, per queue over time", "Wait time CDF by queue and by job kind",
        "JCT CDF by queue and by job kind", "GPU-hours: productive, lost by cause, idle",
        "Restarts and backoff per job", "Fault timeline"}) {
    CHECK(run.find(title) != std::string::npos);
  }
  CHECK(cmp.find("Paired differences against the base") != std::string::npos);
  CHECK(cmp.find("Variants side by side") != std::string::npos);
  CHECK(run.find("Paired differences") == std::string::npos);
  // Intervals in the headline table for replications; seeds and replication numbers printed.
  CHECK(reps.find(" ± ") != std::string::npos);
  CHECK(reps.find("seed 42") != std::string::npos);
  CHECK(reps.find("replications 0, 1, 2") != std::string::npos);
  // The variant's waits are 20 s shorter in every replication: significant (after Holm's
  // correction too), with the change in % of the base's mean; durations carry their unit.
  CHECK(cmp.find("−20 s ± 0 s") == std::string::npos);
  CHECK(cmp.find("-20 s ± 0 s (-29.9 %) <span class=\"flag\">significant</span>") !=
        std::string::npos);
  CHECK(cmp.find("after Holm's correction") != std::string::npos);
}

// Issue 48: the first screen says what was simulated and answers per queue before any table.
TEST_CASE("report.html opens with what was simulated and each queue's answer", "[report]") {
  const std::string run = read(fixture_tree() / "run" / "report.html");
  const std::string reps = read(fixture_tree() / "reps" / "report.html");
  const auto at = [](const std::string& page, const char* what) {
    const auto p = page.find(what);
    INFO(what);
    CHECK(p != std::string::npos);
    return p;
  };
  for (const auto* page : {&run, &reps}) {
    const auto setup = at(*page, "<h2>What was simulated</h2>");
    CHECK(setup < at(*page, "<h2>Headline metrics</h2>"));
    at(*page,
       "<b>Cluster</b>: 4 × <b>a100</b> (8 &lt;img src=x onerror=alert(1)&gt; GPUs each): "
       "32 GPUs on 4 nodes");
    at(*page, "<b>research</b> (priority 1, quota 16 GPUs)");
    at(*page, "(priority 0, no quota)");
    at(*page, "<b>Faults</b>: profile a100-typical");
    at(*page, "generator &lt;img src=x onerror=alert(1)&gt;; 2 explicit jobs");
    // The answer: waits with their unit and 3 of the 4 waiting job-hours on the quota.
    const auto answer = at(*page, "<h2>The answer, by queue</h2>");
    CHECK(setup < answer);
    at(*page, "75.0 % of the job-hours its jobs waited were on its quota: <b>the quota binds</b>");
  }
  at(run, "<b>research</b>: median wait 30 s, p90 wait 10 min;");
  at(run, "One run: a single sample, without an interval.");
  at(reps, "3 replications (seed 42)");
  at(reps, "Means with their 95 % intervals over the replications.");
  at(reps, "p90 wait 11 min ± ");
}

TEST_CASE("report rendering is deterministic and reloads from a comparison directory", "[report]") {
  const auto in = load_report_input(fixture_tree() / "compare");
  REQUIRE(in.kind == ReportKind::Comparison);
  REQUIRE(in.variants.size() == 2);
  CHECK(in.variants[1].name == "bigger");
  CHECK(in.variants[1].vs_base.at("wait_mean_s").difference.mean == Approx(-20));
  CHECK(render_report(in) == read(fixture_tree() / "compare" / "report.html"));
  CHECK_THROWS_WITH(load_report_input(fixture_tree() / "missing"),
                    Catch::Contains("no summary.json"));
}

TEST_CASE("run progress: simulated time, events per second and an ETA, only after the delay",
          "[progress]") {
  CHECK(render_run_progress({0.5, 7 * 86400.0, 6000000, 5.0}, 10) ==
        "simulating [#####     ]  50% 3.5 d of 7 d, 1.2M events/s, ETA 5 s");
  CHECK(render_run_progress({0.25, 3600.0, 9000, 3.0}, 4) ==
        "simulating [#   ]  25% 15 min of 1 h, 3k events/s, ETA 9 s");
  CHECK(render_run_progress({1.0, 60.0, 10, 2.0}, 2) ==
        "simulating [##] 100% 1 min of 1 min, 5 events/s");
  std::FILE* late = std::tmpfile();
  std::FILE* soon = std::tmpfile();
  std::FILE* off = std::tmpfile();
  REQUIRE((late && soon && off));
  {
    RunProgress short_run(3600, late, true, 1e9);  // a run shorter than the delay shows nothing
    RunProgress long_run(3600, soon, true, 0);
    RunProgress quiet(3600, off, false, 0);
    for (int i = 1; i <= 4; ++i) {
      short_run.update(i / 4.0, 1000u * i);
      long_run.update(i / 4.0, 1000u * i);
      quiet.update(i / 4.0, 1000u * i);
    }
    CHECK(long_run.drawn());
    CHECK_FALSE(short_run.drawn());
  }
  CHECK(text(late).empty());
  CHECK(text(off).empty());
  const std::string shown = text(soon);
  CHECK(shown.find("simulating [") != std::string::npos);
  CHECK(shown.find("events/s") != std::string::npos);
  CHECK(shown.find("100% 1 h of 1 h") != std::string::npos);  // the finished line
  CHECK(shown.back() == '\n');
}

TEST_CASE("a run without faults is a caution only when every run lacks them", "[report]") {
  // issue 51: five replications of the default scenario, one of them fault-free by chance, must
  // not open the report with a warning; a set in which no run had a fault must.
  const std::string none = no_fault_warning("h100-frontier");
  CHECK(no_fault_profile(none) == "h100-frontier");
  CHECK_FALSE(no_fault_profile("skipped 3 malformed trace rows").has_value());
  struct Row {
    std::vector<std::vector<std::string>> runs;  // each run's warnings
    bool fault_warning;
    std::string other;  // expected other text, or empty
  };
  const std::vector<Row> rows = {
      {{{}}, false, ""},
      {{{none}}, true, ""},
      {{{}, {none}, {}, {}, {}}, false, ""},
      {{{none}, {none}, {none}}, true, ""},
      {{{none, "skipped 2 rows"}, {}}, false, "skipped 2 rows (1 of 2 runs)"},
      // Every run gave it, or one run only: no count ("1 of 1 runs" read as if more had run).
      {{{"skipped 2 rows"}}, false, "skipped 2 rows</li>"},
      {{{"skipped 2 rows"}, {"skipped 2 rows"}}, false, "skipped 2 rows</li>"},
      // Each distinct warning, not only the first.
      {{{"a", "b"}, {"b"}}, false, "<li>a (1 of 2 runs)</li>\n<li>b</li>"},
  };
  for (const auto& row : rows) {
    ReportInput in;
    in.kind = row.runs.size() == 1 ? ReportKind::Run : ReportKind::Replications;
    ReportVariant v;
    v.name = "run";
    for (std::size_t i = 0; i < row.runs.size(); ++i) {
      RunSummary r;
      r.replication = i;
      r.warnings = row.runs[i];
      v.replications.runs.push_back(r);
    }
    in.variants.push_back(v);
    const std::string html = detail::warnings_block(in);
    INFO(html);
    const std::string expected = no_fault_warning("h100-frontier", row.runs.size());
    CHECK((html.find(expected) != std::string::npos) == row.fault_warning);
    const bool single = row.fault_warning && row.runs.size() == 1;
    CHECK((html.find("no fault happened in this run") != std::string::npos) == single);
    if (!row.other.empty()) CHECK(html.find(row.other) != std::string::npos);
  }
}

TEST_CASE("progress bar: drawn only when enabled", "[progress]") {
  CHECK(Progress::render("run", 5, 10, 10) == "run [#####     ]  50% 5/10");
  CHECK(Progress::render("", 20, 10, 4) == "[####] 100% 10/10");
  CHECK(Progress::render("x", 0, 0, 2) == "x [##] 100% 0/0");
  std::FILE* on = std::tmpfile();
  std::FILE* off = std::tmpfile();
  REQUIRE(on);
  REQUIRE(off);
  {
    Progress p(4, "reps", on, true);
    Progress q(4, "reps", off, false);
    CHECK(p.enabled());
    CHECK_FALSE(q.enabled());
    p.update(1);
    p.advance(1);
    q.update(2);
  }
  const std::string a = text(on);
  CHECK(a.find("25% 1/4") != std::string::npos);
  CHECK(a.find("50% 2/4") != std::string::npos);
  CHECK(a.find("100% 4/4") != std::string::npos);  // finished by the destructor
  CHECK(a.back() == '\n');
  CHECK(text(off).empty());
}
