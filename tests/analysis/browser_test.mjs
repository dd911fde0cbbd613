// Opens the reports of the synthetic results tree (report_fixture) in headless Chromium over the
// DevTools protocol (--remote-debugging-pipe) and checks what a person would see:
//  - no console errors or uncaught exceptions;
//  - every chart rendered with vega-embed and drew marks (SVG elements under .role-mark);
//  - the hostile job and queue names are shown as text and never executed (window.alert is
//    replaced before any page script runs and records calls);
//  - hovering a bar shows a tooltip;
// and saves a full-page PNG of each report next to it.
//   node browser_test.mjs REPORT_FIXTURE_BINARY OUT_DIR
// Exit 0 all passed, 1 a check failed, 77 Chromium is not installed (CTest SKIP_RETURN_CODE).
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// With --real T9KSIM STUDIES_DIR, the reports are also those of real runs: the embedded default
// scenario (t9ksim run) and a shipped what-if study (t9ksim compare), which have no hostile names.
const args = process.argv.slice(2);
let realBin = null, studiesDir = null;
if (args[0] === "--real") {
  [realBin, studiesDir] = args.slice(1, 3);
  args.splice(0, 3);
}
const [fixtureBin, outDir] = args;
if (!fixtureBin || !outDir) {
  console.error("usage: node browser_test.mjs [--real T9KSIM STUDIES_DIR] REPORT_FIXTURE_BINARY OUT_DIR");
  process.exit(2);
}

function findChromium() {
  const candidates = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  for (const dir of (process.env.PATH || "").split(":")) candidates.push(path.join(dir, "chromium"));
  return candidates.find((c) => c && fs.existsSync(c));
}
const chromium = findChromium();
if (!chromium) {
  console.log("SKIP: chromium is not installed (scripts/setup installs Debian's chromium package)");
  process.exit(77);
}

const HOSTILE_JOB = "<img src=x onerror=alert(1)>";
const HOSTILE_QUEUE = "</script><script>alert(2)</script>";

fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });
const fixtureDir = path.join(outDir, "fixture");
execFileSync(fixtureBin, [fixtureDir], { stdio: "inherit" });

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "t9ksim-chromium-"));
const browser = spawn(chromium, [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--disable-extensions", "--mute-audio", "--hide-scrollbars",
  `--user-data-dir=${profile}`, "--remote-debugging-pipe", "about:blank",
], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
let browserLog = "";
browser.stderr.on("data", (d) => { browserLog += d; });

// ---- a minimal CDP client over the pipe (NUL-separated JSON messages) ----
let nextId = 1;
const pending = new Map();
const listeners = [];
let buffer = "";
browser.stdio[4].on("data", (chunk) => {
  buffer += chunk.toString("utf8");
  let end;
  while ((end = buffer.indexOf("\0")) >= 0) {
    const msg = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(new Error(JSON.stringify(msg.error)));
      else resolve(msg.result);
    } else if (msg.method) {
      for (const l of listeners) l(msg);
    }
  }
});
function send(method, params = {}, sessionId = undefined) {
  const id = nextId++;
  const msg = { id, method, params };
  if (sessionId) msg.sessionId = sessionId;
  browser.stdio[3].write(JSON.stringify(msg) + "\0");
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    setTimeout(() => {
      if (pending.delete(id)) reject(new Error(`timeout waiting for ${method}`));
    }, 60000);
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let passed = 0;
let failed = 0;
function check(ok, what) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
}

async function evaluate(sessionId, expression) {
  const r = await send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true }, sessionId);
  if (r.exceptionDetails) throw new Error(`evaluate failed: ${JSON.stringify(r.exceptionDetails)}`);
  return r.result.value;
}

async function checkReport(kind, expectedCharts, file = path.join(fixtureDir, kind, "report.html"), hostile = true) {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const errors = [];
  listeners.push((m) => {
    if (m.sessionId !== sessionId) return;
    if (m.method === "Runtime.consoleAPICalled" && (m.params.type === "error" || m.params.type === "assert")) {
      errors.push(`console.${m.params.type}: ${m.params.args.map((a) => a.value ?? a.description).join(" ")}`);
    } else if (m.method === "Runtime.exceptionThrown") {
      errors.push(`exception: ${m.params.exceptionDetails.exception?.description ?? m.params.exceptionDetails.text}`);
    } else if (m.method === "Log.entryAdded" && m.params.entry.level === "error") {
      errors.push(`log: ${m.params.entry.text} ${m.params.entry.url ?? ""}`);
    }
  });
  await send("Page.enable", {}, sessionId);
  await send("Runtime.enable", {}, sessionId);
  await send("Log.enable", {}, sessionId);
  // Runs before any script of the page: a hostile name that executed would call alert.
  await send("Page.addScriptToEvaluateOnNewDocument", {
    source: "window.__t9kAlerts = []; window.alert = function (m) { window.__t9kAlerts.push(String(m)); };",
  }, sessionId);
  await send("Emulation.setDeviceMetricsOverride", { width: 1280, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
  await send("Page.navigate", { url: "file://" + file }, sessionId);

  let done = false;
  for (let i = 0; i < 240 && !done; i++) {
    await sleep(250);
    done = await evaluate(sessionId, "document.body && document.body.getAttribute('data-charts-done') === 'true'");
  }
  check(done, `${kind}: every chart finished rendering`);

  const charts = await evaluate(sessionId, `Array.from(document.querySelectorAll('[data-chart]')).map(el => ({
      id: el.id,
      status: el.getAttribute('data-status'),
      svg: el.querySelectorAll('svg').length,
      marks: el.querySelectorAll('g.role-mark > *').length,
      title: el.parentElement.querySelector('h2').textContent }))`);
  check(charts.length === expectedCharts, `${kind}: ${charts.length} charts (expected ${expectedCharts})`);
  for (const c of charts) {
    check(c.status === "ok" && c.svg > 0 && c.marks > 0, `${kind}: chart "${c.title}" drew ${c.marks} marks`);
  }

  // Every series has its legend entry (issue 48): each value of a nominal colour field in a
  // view's data is a visible label of the chart's rendered legends (a label cut by labelLimit
  // ends in "…" and matches what it starts with).
  const legends = await evaluate(sessionId, `(() => {
      const data = JSON.parse(document.getElementById("t9k-data").textContent);
      return data.charts.map((chart, i) => {
        const el = document.getElementById("chart-" + i);
        // Only labels inside their SVG's box count: Vega draws a legend taller than its view
        // past the SVG's bottom edge, where nobody sees it.
        const inside = (t) => {
          const r = t.getBoundingClientRect(), b = t.ownerSVGElement.getBoundingClientRect();
          return r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && r.left >= b.left - 1 && r.right <= b.right + 1;
        };
        const labels = Array.from(el.querySelectorAll('g.role-legend-label text')).filter(inside).map(t => t.textContent);
        const shown = (v) => labels.some(l => l === v || (l.endsWith("…") && v.startsWith(l.slice(0, -1))));
        const missing = new Set();
        const walk = (node, values) => {
          if (Array.isArray(node)) { node.forEach(n => walk(n, values)); return; }
          if (!node || typeof node !== "object") return;
          if (node.data && Array.isArray(node.data.values)) values = node.data.values;
          const c = node.encoding && node.encoding.color;
          if (c && c.field && c.type === "nominal" && c.legend !== null && values) {
            for (const row of values) {
              if (row[c.field] === undefined) continue;
              const v = String(row[c.field]);
              if (!shown(v)) missing.add(v);
            }
          }
          for (const k of ["layer", "hconcat", "vconcat", "concat", "spec"]) if (node[k]) walk(node[k], values);
        };
        walk(chart.spec, null);
        return { title: el.parentElement.querySelector("h2").textContent, missing: Array.from(missing) };
      });
    })()`);
  for (const l of legends) {
    check(l.missing.length === 0, `${kind}: chart "${l.title}" has a legend entry for every series${l.missing.length ? " (missing: " + l.missing.join(", ") + ")" : ""}`);
  }

  const safety = await evaluate(sessionId, `({
      alerts: window.__t9kAlerts.length,
      images: Array.from(document.images).map(i => i.getAttribute('src')),
      scripts: document.scripts.length,
      text: document.body.textContent })`);
  check(safety.alerts === 0, `${kind}: no alert() from hostile names`);
  check(!safety.images.includes("x"), `${kind}: no <img src=x> element`);
  check(safety.scripts === 5, `${kind}: only the report's own 5 script elements (found ${safety.scripts})`);
  if (hostile) {
    check(safety.text.includes(HOSTILE_JOB), `${kind}: the hostile job name is shown as text`);
    check(safety.text.includes(HOSTILE_QUEUE), `${kind}: the hostile queue name is shown as text`);
  }

  // Hover the first bar of the GPU-hours chart: vega-embed's tooltip must appear.
  const box = await evaluate(sessionId, `(() => {
      const h = Array.from(document.querySelectorAll('section.chart h2')).find(e => e.textContent.startsWith('GPU-hours'));
      const el = h && h.parentElement.querySelector('g.mark-rect.role-mark > path');
      if (!el) return null;
      el.scrollIntoView();
      const r = el.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    })()`);
  let tooltip = "";
  if (box) {
    await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: box.x, y: box.y }, sessionId);
    for (let i = 0; i < 20 && !tooltip; i++) {
      await sleep(100);
      tooltip = await evaluate(sessionId, `(() => { const t = document.getElementById('vg-tooltip-element');
          return t && t.classList.contains('visible') ? t.textContent : ''; })()`);
    }
  }
  check(tooltip.includes("GPU-hours"), `${kind}: hovering a bar shows a tooltip (${JSON.stringify(tooltip.slice(0, 60))})`);

  check(errors.length === 0, `${kind}: no console errors${errors.length ? ": " + errors.join(" | ") : ""}`);

  await evaluate(sessionId, "window.scrollTo(0, 0)");
  const height = await evaluate(sessionId, "Math.min(12000, document.documentElement.scrollHeight)");
  await send("Emulation.setDeviceMetricsOverride", { width: 1280, height, deviceScaleFactor: 1, mobile: false }, sessionId);
  await sleep(300);
  const shot = await send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true }, sessionId);
  const png = path.join(outDir, `report-${kind}.png`);
  fs.writeFileSync(png, Buffer.from(shot.data, "base64"));
  check(fs.statSync(png).size > 10000, `${kind}: screenshot saved to ${png}`);
  await send("Target.closeTarget", { targetId });
}

let exitCode = 0;
try {
  await checkReport("run", 10);
  await checkReport("reps", 10);
  await checkReport("compare", 12);
  if (realBin) {
    const realRun = path.join(outDir, "real-run");
    execFileSync(realBin, ["run", "--out", realRun, "--quiet"], { stdio: "inherit" });
    await checkReport("real-run", 10, path.join(realRun, "report.html"), false);
    const realCompare = path.join(outDir, "real-compare");
    execFileSync(realBin, ["compare", "preemption.yaml", "--variant", "on=variants/preemption.on.yaml",
                           "--replications", "2", "--out", realCompare, "--quiet"], { stdio: "inherit", cwd: studiesDir });
    await checkReport("real-compare", 12, path.join(realCompare, "report.html"), false);
  }
} catch (e) {
  failed++;
  console.log(`FAIL ${e.stack || e}`);
  if (browserLog) console.log(`chromium stderr:\n${browserLog.slice(-4000)}`);
} finally {
  const exited = new Promise((r) => browser.once("exit", r));
  try { await send("Browser.close"); } catch { browser.kill("SIGKILL"); }
  await Promise.race([exited, sleep(10000).then(() => browser.kill("SIGKILL"))]);
  fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
console.log(`${passed} passed, ${failed} failed`);
exitCode = failed === 0 ? 0 : 1;
process.exit(exitCode);
