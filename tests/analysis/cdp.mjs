// Headless Chromium over the DevTools protocol (--remote-debugging-pipe) for the report's browser
// tests (browser_test.mjs, page_speed.mjs): launch, a minimal CDP client, a page opened at a
// width with its errors collected, waiting for the charts, full-page screenshots.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function findChromium() {
  const candidates = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  for (const dir of (process.env.PATH || "").split(":")) candidates.push(path.join(dir, "chromium"));
  return candidates.find((c) => c && fs.existsSync(c));
}

// The Chromium to drive; exits 77 (CTest's SKIP_RETURN_CODE) when there is none.
export function chromiumOrSkip() {
  const chromium = findChromium();
  if (!chromium) {
    console.log("SKIP: chromium is not installed (scripts/setup installs Debian's chromium package)");
    process.exit(77);
  }
  return chromium;
}

// A test's checks: check(ok, what) prints "ok  what" or "FAIL what" and counts them.
export function checks() {
  const c = { passed: 0, failed: 0 };
  c.check = (ok, what) => {
    if (ok) c.passed++;
    else c.failed++;
    console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  };
  return c;
}

// Starts Chromium; returns the client: send(method, params, sessionId), evaluate(sessionId, js),
// listeners (functions called with every event), log() (its stderr) and close().
export function launch(chromium) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "t9ksim-chromium-"));
  const browser = spawn(chromium, [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--mute-audio", "--hide-scrollbars",
    `--user-data-dir=${profile}`, "--remote-debugging-pipe", "about:blank",
  ], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
  let browserLog = "";
  browser.stderr.on("data", (d) => { browserLog += d; });

  // Messages are NUL-separated JSON on fd 3 (to Chromium) and fd 4 (from it).
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
  async function evaluate(sessionId, expression) {
    const r = await send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true }, sessionId);
    if (r.exceptionDetails) throw new Error(`evaluate failed: ${JSON.stringify(r.exceptionDetails)}`);
    return r.result.value;
  }
  async function close() {
    const exited = new Promise((r) => browser.once("exit", r));
    try { await send("Browser.close"); } catch { browser.kill("SIGKILL"); }
    await Promise.race([exited, sleep(10000).then(() => browser.kill("SIGKILL"))]);
    fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
  return { send, evaluate, listeners, log: () => browserLog, close };
}

// Opens `file` in a new tab `width` px wide; `beforeLoad` (script source) runs before any script
// of the page. Returns { targetId, sessionId, errors } with errors filled as they happen.
export async function openPage(cdp, file, width, beforeLoad = null) {
  const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
  const errors = [];
  cdp.listeners.push((m) => {
    if (m.sessionId !== sessionId) return;
    if (m.method === "Runtime.consoleAPICalled" && (m.params.type === "error" || m.params.type === "assert")) {
      errors.push(`console.${m.params.type}: ${m.params.args.map((a) => a.value ?? a.description).join(" ")}`);
    } else if (m.method === "Runtime.exceptionThrown") {
      errors.push(`exception: ${m.params.exceptionDetails.exception?.description ?? m.params.exceptionDetails.text}`);
    } else if (m.method === "Log.entryAdded" && m.params.entry.level === "error") {
      errors.push(`log: ${m.params.entry.text} ${m.params.entry.url ?? ""}`);
    }
  });
  await cdp.send("Page.enable", {}, sessionId);
  await cdp.send("Runtime.enable", {}, sessionId);
  await cdp.send("Log.enable", {}, sessionId);
  if (beforeLoad) await cdp.send("Page.addScriptToEvaluateOnNewDocument", { source: beforeLoad }, sessionId);
  await cdp.send("Emulation.setDeviceMetricsOverride", { width, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
  await cdp.send("Page.navigate", { url: "file://" + file }, sessionId);
  return { targetId, sessionId, errors };
}

// Waits until the report's script marks every chart drawn (data-charts-done); false after
// `timeoutMs`.
export async function chartsDone(cdp, sessionId, timeoutMs = 60000, pollMs = 50) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await cdp.evaluate(sessionId, "document.body && document.body.getAttribute('data-charts-done') === 'true'")) return true;
    await sleep(pollMs);
  }
  return false;
}

// Tables, charts and images reaching past the page's right edge at its current width, outside
// the scrolling boxes meant for wide tables (div.wide): what a reader would have to scroll
// sideways for.
export function overflowing(cdp, sessionId) {
  return cdp.evaluate(sessionId, `Array.from(document.querySelectorAll("table, svg, img"))
      .filter(e => !e.closest("div.wide") && !e.closest("svg svg")
                   && e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
      .map(e => e.tagName.toLowerCase() + " right edge at " + Math.round(e.getBoundingClientRect().right) + " px")`);
}

// A full-page PNG at `width` px (the charts redraw to the width first).
export async function screenshot(cdp, sessionId, width, png) {
  await cdp.send("Emulation.setDeviceMetricsOverride", { width, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
  await sleep(400);
  await cdp.evaluate(sessionId, "window.scrollTo(0, 0)");
  const height = await cdp.evaluate(sessionId, "Math.min(12000, document.documentElement.scrollHeight)");
  await cdp.send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false }, sessionId);
  await sleep(300);
  const shot = await cdp.send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true }, sessionId);
  fs.writeFileSync(png, Buffer.from(shot.data, "base64"));
  return fs.statSync(png).size;
}
