// Opens the reports of the synthetic results tree (report_fixture) in headless Chromium over the
// DevTools protocol (--remote-debugging-pipe) and checks what a person would see:
//  - no console errors or uncaught exceptions;
//  - every chart rendered with vega-embed and drew marks (SVG elements under .role-mark);
//  - the hostile job and queue names are shown as text and never executed (window.alert is
//    replaced before any page script runs and records calls);
//  - hovering a bar shows a tooltip;
//  - every series has a visible legend entry, and nothing reaches past the page's right edge at
//    1400 or 1920 px;
// and saves a full-page PNG of each report at both widths next to it.
//   node browser_test.mjs [--real T9KSIM STUDIES_DIR] REPORT_FIXTURE_BINARY OUT_DIR
// Exit 0 all passed, 1 a check failed, 77 Chromium is not installed (CTest SKIP_RETURN_CODE).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chartsDone, checks, chromiumOrSkip, launch, openPage, overflowing, screenshot, sleep } from "./cdp.mjs";

// With --real T9KSIM STUDIES_DIR, the reports are also those of real runs: the embedded default
// scenario (t9ksim run), a shipped what-if study (t9ksim compare), a two-parameter sweep with a
// target and a size search, which have no hostile names.
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

const chromium = chromiumOrSkip();

const HOSTILE_JOB = "<img src=x onerror=alert(1)>";
const HOSTILE_QUEUE = "</script><script>alert(2)</script>";

fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });
const fixtureDir = path.join(outDir, "fixture");
execFileSync(fixtureBin, [fixtureDir], { stdio: "inherit" });

const cdp = launch(chromium);
const { send, evaluate } = cdp;

const results = checks();
const check = results.check;

// Opens a report at 1400 px and checks it; `bars`: it has the GPU-hours bar chart whose tooltip is
// hovered. Screenshots at 1400 and 1920 px go to OUT_DIR/report-KIND-WIDTH.png (kept by
// scripts/test as CI artifacts, with what the sweep and size reports look like).
async function checkReport(kind, expectedCharts, file = path.join(fixtureDir, kind, "report.html"),
                           { hostile = true, bars = true } = {}) {
  // Runs before any script of the page: a hostile name that executed would call alert.
  const { targetId, sessionId, errors } = await openPage(cdp, file, 1400,
    "window.__t9kAlerts = []; window.alert = function (m) { window.__t9kAlerts.push(String(m)); };");
  check(await chartsDone(cdp, sessionId), `${kind}: every chart finished rendering`);

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
  if (bars && box) {
    await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: box.x, y: box.y }, sessionId);
    for (let i = 0; i < 20 && !tooltip; i++) {
      await sleep(100);
      tooltip = await evaluate(sessionId, `(() => { const t = document.getElementById('vg-tooltip-element');
          return t && t.classList.contains('visible') ? t.textContent : ''; })()`);
    }
  }
  if (bars) check(tooltip.includes("GPU-hours"), `${kind}: hovering a bar shows a tooltip (${JSON.stringify(tooltip.slice(0, 60))})`);

  check(errors.length === 0, `${kind}: no console errors${errors.length ? ": " + errors.join(" | ") : ""}`);

  // Nothing to scroll sideways for at either width (wide tables scroll in their own box).
  for (const width of [1920, 1400]) {
    await send("Emulation.setDeviceMetricsOverride", { width, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
    await sleep(400);
    const over = await overflowing(cdp, sessionId);
    check(over.length === 0, `${kind}: at ${width} px nothing reaches past the page's edge${over.length ? " (" + over.join("; ") + ")" : ""}`);
    const png = path.join(outDir, `report-${kind}-${width}.png`);
    check(await screenshot(cdp, sessionId, width, png) > 10000, `${kind}: screenshot at ${width} px saved to ${png}`);
  }
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
    await checkReport("real-run", 10, path.join(realRun, "report.html"), { hostile: false });
    const realCompare = path.join(outDir, "real-compare");
    execFileSync(realBin, ["compare", "preemption.yaml", "--variant", "on=variants/preemption.on.yaml",
                           "--replications", "2", "--out", realCompare, "--quiet"], { stdio: "inherit", cwd: studiesDir });
    await checkReport("real-compare", 12, path.join(realCompare, "report.html"), { hostile: false });
    // A sweep over two parameters with a target (heatmaps) and a size search (lines, the answer).
    const planning = path.join(studiesDir, "..", "..", "tests", "scenarios", "planning", "size-nodes.yaml");
    const realSweep = path.join(outDir, "real-sweep");
    execFileSync(realBin, ["sweep", planning, "--vary", "cluster.nodePools[name=h100].count=2:6",
                           "--vary", "scheduler.queues[name=production].spec.quota.requests.nvidia\\.com/gpu=16,24,32,48",
                           "--target", "queue=production wait_p90 < 30m in 80% of runs", "-r", "2",
                           "--set", "cluster.nodePools[name=h100].pricePerNodeHour=80", "--minimise", "cost_total",
                           "--out", realSweep, "--quiet"], { stdio: "inherit" });
    await checkReport("real-sweep", 11, path.join(realSweep, "report.html"), { hostile: false, bars: false });
    const realSize = path.join(outDir, "real-size");
    execFileSync(realBin, ["size", planning, "--param", "cluster.nodePools[name=h100].count=1:8",
                           "--target", "queue=production wait_p90 < 30m", "-r", "2",
                           "--out", realSize, "--quiet"], { stdio: "inherit" });
    await checkReport("real-size", 8, path.join(realSize, "report.html"), { hostile: false, bars: false });
  }
} catch (e) {
  check(false, e.stack || String(e));
  if (cdp.log()) console.log(`chromium stderr:\n${cdp.log().slice(-4000)}`);
} finally {
  await cdp.close();
}
console.log(`${results.passed} passed, ${results.failed} failed`);
exitCode = results.failed === 0 ? 0 : 1;
process.exit(exitCode);
