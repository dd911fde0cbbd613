#include "app/test_command.hpp"

#include <unistd.h>
#include <memory>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "analysis/outputs.hpp"
#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "app/commands.hpp"
#include "app/options.hpp"
#include "app/run_command.hpp"
#include "runs/exit_codes.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

namespace {

namespace fs = std::filesystem;

// The file's text through the loaders' reader; what went wrong is in `errors`.
std::string read_text(const fs::path& path, std::vector<scenarios::Diagnostic>* errors = nullptr) {
  std::string text;
  std::vector<scenarios::Diagnostic> ignored;
  if (!scenarios::read_input_file(path.string(), text, errors ? *errors : ignored)) return {};
  return text;
}

// A scenario file says `kind: Scenario` at its top level (YAML), or "kind": "Scenario" (JSON).
bool looks_like_scenario(const std::string& text) {
  const auto trim = [](std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r'))
      v.remove_suffix(1);
    return v;
  };
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("kind:")) continue;
    std::string_view v = std::string_view(line).substr(5);
    if (const auto hash = v.find('#'); hash != std::string_view::npos) v = v.substr(0, hash);
    v = trim(v);
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    if (v == "Scenario") return true;
  }
  for (std::size_t at = text.find("\"kind\""); at != std::string::npos;
       at = text.find("\"kind\"", at + 1)) {
    std::string_view rest = trim(std::string_view(text).substr(at + 6));
    if (!rest.starts_with(':')) continue;
    if (trim(rest.substr(1)).starts_with("\"Scenario\"")) return true;
  }
  return false;
}

struct Case {
  fs::path file;
  std::string name;  // its results folder under OUT
  bool explicit_file = false;
  enum class Result { Pending, Passed, Failed, Skipped } result = Result::Pending;
  std::string messages;
  double seconds = 0;
};

// XML text: the report's escaping, and control characters (not allowed in XML 1.0) as '?'.
std::string xml_escape(std::string_view s) {
  std::string clean(s);
  for (char& c : clean) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') c = '?';
  }
  return analysis::html_escape(clean);
}

// JUnit XML as CI systems read it (one testsuite, one testcase per scenario), written to a
// temporary name and renamed so a reader never sees half a report.
bool write_junit(const fs::path& file, const std::vector<Case>& cases, double total_seconds) {
  int failures = 0, skipped = 0;
  for (const auto& c : cases) {
    failures += c.result == Case::Result::Failed;
    skipped += c.result == Case::Result::Skipped;
  }
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format("<testsuites tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
                   cases.size(), failures, skipped, total_seconds);
  x += fmt::format(
      "  <testsuite name=\"t9ksim\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n",
      cases.size(), failures, skipped, total_seconds);
  for (const auto& c : cases) {
    x += fmt::format(
        "    <testcase classname=\"t9ksim.scenario\" name=\"{}\" file=\"{}\" time=\"{:.3f}\"",
        xml_escape(c.file.generic_string()), xml_escape(c.file.generic_string()), c.seconds);
    if (c.result == Case::Result::Passed) {
      x += "/>\n";
      continue;
    }
    x += ">\n";
    if (c.result == Case::Result::Skipped) {
      x += "      <skipped message=\"no expect block\"/>\n";
    } else {
      const auto first_line = c.messages.substr(0, c.messages.find('\n'));
      x += fmt::format("      <failure message=\"{}\">{}</failure>\n", xml_escape(first_line),
                       xml_escape(c.messages));
    }
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  try {
    analysis::write_file_atomic(file, x);
    return true;
  } catch (const std::runtime_error&) {
    return false;
  }
}

// The end of each plugin log of a failed run (the folder is temporary without --out): what the
// plugin said last is usually why.
std::string plugin_logs(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir / "plugins", ec)) return "";
  std::vector<fs::path> logs;
  for (const auto& e : fs::directory_iterator(dir / "plugins", ec)) logs.push_back(e.path());
  std::sort(logs.begin(), logs.end());
  std::string out;
  for (const auto& log : logs) {
    const std::string text = read_text(log);
    if (text.empty()) continue;
    std::vector<std::string_view> lines;
    for (std::size_t at = 0; at < text.size();) {
      const auto nl = std::min(text.find('\n', at), text.size());
      lines.push_back(std::string_view(text).substr(at, nl - at));
      at = nl + 1;
    }
    const std::size_t from = lines.size() > 20 ? lines.size() - 20 : 0;
    out += fmt::format("the end of {}:\n", log.filename().string());
    for (std::size_t i = from; i < lines.size(); ++i) out += fmt::format("  {}\n", lines[i]);
  }
  return out;
}

// Results folder names: the path below the argument it was found in, '/' -> '__', no extension.
std::string case_name(const fs::path& file, const fs::path& root) {
  fs::path rel = root.empty() ? file.filename() : file.lexically_relative(root);
  if (rel.empty() || rel.native().starts_with("..")) rel = file.filename();
  std::string s = rel.replace_extension().generic_string();
  std::replace(s.begin(), s.end(), '/', '_');
  return s;
}

}  // namespace

// The cases under the given paths: a file as given, a folder's scenario files in name order;
// nullopt after saying why there is none.
std::optional<std::vector<Case>> find_cases(const TestArgs& args) {
  std::vector<Case> cases;
  for (const auto& p : args.paths) {
    const fs::path path(p);
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<fs::path> found;
      for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        const auto ext = it->path().extension();
        if (it->is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json"))
          found.push_back(it->path());
      }
      if (ec) {
        fmt::print(stderr, "t9ksim test: {}: {}\n", p, ec.message());
        return std::nullopt;
      }
      std::sort(found.begin(), found.end());
      for (const auto& f : found) {
        // Manifests, overlays and trace entries beside the cases are not cases.
        if (!looks_like_scenario(read_text(f))) continue;
        Case c;
        c.file = f;
        c.name = case_name(f, path);
        cases.push_back(std::move(c));
      }
    } else if (fs::is_regular_file(path, ec)) {
      Case c;
      c.file = path;
      c.name = case_name(path, {});
      c.explicit_file = true;
      cases.push_back(std::move(c));
    } else {
      fmt::print(stderr, "t9ksim test: {}: no such file or folder\n", p);
      return std::nullopt;
    }
  }
  if (cases.empty()) {
    fmt::print(stderr, "t9ksim test: no scenario files under {}\n", fmt::join(args.paths, ", "));
    return std::nullopt;
  }
  // Results folders must not collide (two arguments may hold files of one name).
  {
    std::map<std::string, int> seen;
    for (auto& c : cases) {
      if (const int n = seen[c.name]++; n > 0) c.name += fmt::format("-{}", n + 1);
    }
  }
  return cases;
}

// Runs one case into out/<name> (out/<name>/rep-<r> with replications): its result and messages.
void run_case(const TestArgs& args, const Case& c, const fs::path& out, Case::Result& result,
              std::string& messages) {
  result = Case::Result::Passed;
  std::vector<scenarios::Diagnostic> read_errors;
  const std::string text = read_text(c.file, &read_errors);
  scenarios::LoadOptions lo;
  lo.max_jobs = scenarios::kDefaultMaxJobs;
  lo.base_dir = c.file.parent_path().string();
  const auto loaded = read_errors.empty() ? scenarios::parse_scenario(text, c.file.string(), lo)
                                          : scenarios::ScenarioResult{};
  if (!read_errors.empty()) {
    for (const auto& d : read_errors) messages += scenarios::format_diagnostic(d) + "\n";
    result = Case::Result::Failed;
  } else if (!loaded.ok()) {
    for (const auto& d : loaded.diagnostics) messages += scenarios::format_diagnostic(d) + "\n";
    result = Case::Result::Failed;
  } else if (!loaded.scenario->expect && args.references.empty()) {
    result = c.explicit_file ? Case::Result::Failed : Case::Result::Skipped;
    if (c.explicit_file)
      messages = fmt::format("{}: the scenario has no expect block\n", c.file.string());
  } else {
    RunOneOptions opt;
    opt.check = loaded.scenario->expect.has_value();
    opt.quiet = true;
    opt.messages = &messages;
    opt.plugins = args.plugins;
    opt.references = args.references;
    const int reps = std::max(1, loaded.scenario->replications);
    for (int r = 0; r < reps; ++r) {
      const fs::path dir = reps == 1 ? out / c.name : out / c.name / fmt::format("rep-{}", r);
      if (run_one(text, c.file.string(), static_cast<std::uint64_t>(r), dir.string(), opt) !=
          kExitOk) {
        result = Case::Result::Failed;
        messages += plugin_logs(dir);
        break;  // the first failing replication says it; the others would repeat it
      }
    }
  }
}

int test_command(const TestArgs& args) {
  const auto t0 = std::chrono::steady_clock::now();
  auto found = find_cases(args);
  if (!found) return kExitUsage;
  std::vector<Case> cases = std::move(*found);

  const bool temporary = args.out_dir.empty();
  std::optional<analysis::ResultFolder> folder;
  if (!temporary) {
    std::vector<fs::path> inputs;
    for (const auto& c : cases) inputs.push_back(c.file);
    folder.emplace(args.out_dir, analysis::FolderOptions{"test", analysis::kFilesMarker, inputs});
  }
  const fs::path out = temporary
                           ? fs::temp_directory_path() / fmt::format("t9ksim-test-{}", ::getpid())
                           : folder->path();
  fs::create_directories(out);

  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::condition_variable done_cv;
  auto work = [&] {
    for (std::size_t i = next++; i < cases.size(); i = next++) {
      Case& c = cases[i];
      const auto start = std::chrono::steady_clock::now();
      std::string messages;
      Case::Result result = Case::Result::Passed;
      run_case(args, c, out, result, messages);
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      {
        std::lock_guard<std::mutex> lock(mu);
        c.messages = std::move(messages);
        c.seconds = secs;
        c.result = result;
      }
      done_cv.notify_all();
    }
  };
  unsigned threads =
      args.threads ? args.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, cases.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);

  // One line per case, in file order, as soon as it and those before it are done.
  int passed = 0, failed = 0, skipped = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Case::Result result;
    std::string messages;
    double secs = 0;
    {
      std::unique_lock<std::mutex> lock(mu);
      done_cv.wait(lock, [&] { return cases[i].result != Case::Result::Pending; });
      result = cases[i].result;
      messages = cases[i].messages;
      secs = cases[i].seconds;
    }
    const char* tag = result == Case::Result::Passed   ? "PASS"
                      : result == Case::Result::Failed ? "FAIL"
                                                       : "SKIP";
    fmt::print("{}  {} ({:.2f} s)\n", tag, cases[i].file.generic_string(), secs);
    if (result == Case::Result::Failed || (args.verbose && !messages.empty())) {
      std::istringstream lines(messages);
      for (std::string line; std::getline(lines, line);) fmt::print("      {}\n", line);
    }
    std::fflush(stdout);
    passed += result == Case::Result::Passed;
    failed += result == Case::Result::Failed;
    skipped += result == Case::Result::Skipped;
  }
  for (auto& t : pool) t.join();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("{} passed, {} failed{}\n", passed, failed,
             skipped ? fmt::format(", {} skipped (no expect block)", skipped) : "");

  int rc = failed ? kExitError : kExitOk;
  if (!args.junit.empty() && !write_junit(args.junit, cases, total)) {
    fmt::print(stderr, "t9ksim test: cannot write {}\n", args.junit);
    rc = kExitError;
  }
  if (temporary) {
    std::error_code ec;
    fs::remove_all(out, ec);
  } else {
    folder->commit();
    fmt::print("results in {}\n", fs::absolute(args.out_dir).lexically_normal().string());
  }
  if (passed + failed == 0) {
    fmt::print(stderr, "t9ksim test: no scenario with an expect block under {}\n",
               fmt::join(args.paths, ", "));
    return kExitUsage;
  }
  return rc;
}

void add_test_command(Commands& c) {
  auto args = std::make_shared<TestArgs>();
  auto* test = c.add(
      "test",
      "Run every scenario with an expect block under the given files and folders, in parallel; "
      "one line per case, exit 1 on any failure (docs/regression-testing.md)");
  test->add_option("PATH", args->paths, "Scenario files and folders (searched recursively)")
      ->required();
  test->add_option("--junit", args->junit, "Also write a JUnit XML report to this file");
  test->add_option("-o,--out", args->out_dir,
                   "Keep each case's results in OUT/<case> (default: a temporary folder)");
  test->add_option("-j,--threads", args->threads, "Cases run at once (0: one per core)")
      ->capture_default_str()
      ->transform(threads_number());
  test->add_flag("-v,--verbose", args->verbose, "Also print the passing cases' warnings");
  auto plugins = std::make_shared<PluginOptions>();
  plugins->add_to(test);
  c.on(test, [args, plugins] {
    runs::RunOneOptions parsed;
    if (const auto err = plugins->parse(parsed); !err.empty()) {
      fmt::print(stderr, "t9ksim test: {}\n", err);
      return runs::kExitUsage;
    }
    args->plugins = std::move(parsed.plugins);
    args->references = std::move(parsed.references);
    return test_command(*args);
  });
}

}  // namespace t9k::app
