// The Playwright side of the browser benchmark: runs the scenarios of
// bench/browser-scenarios.json in Chromium through playwright-core and prints,
// for the page load and for every step, the aria snapshot an agent would read
// and how long the action, the wait and the snapshot took. One JSON object per
// line on stdout; tokens are counted on the Rust side.
//
//   node bench/playwright/aria.mjs --base http://127.0.0.1:PORT/ [options]
//
// Options:
//   --base URL        where fixtures/web is served (or $UIDELTA_WEB_BASE); the
//                     scenario pages and `goto` steps are resolved against it
//   --scenarios FILE  scenario file, `-` for stdin (default: ../browser-scenarios.json)
//   --only a,b        run only these scenarios
//   --repeat N        run every scenario N times (default 1), each in a fresh context
//   --settle-ms N     Playwright MCP's settle time (its --timeout-settle), default 500
//   --snapshot MODE   `ai` (default): page.ariaSnapshot({ mode: "ai" }), what Playwright
//                     MCP returns; `body`: page.locator("body").ariaSnapshot(), the
//                     plain aria snapshot of the test runner
//   --chromium PATH   browser executable (default /usr/bin/chromium)
//
// Output line: {scenario, run, step, action, url, snapshot_text, snapshot_bytes,
// snapshot_lines, action_ms, settle_ms, snapshot_ms, expect_missing, absent_present}.
// Step 0 is opening the scenario's page. Times are milliseconds (0.1 ms).
//
// Snapshot API. playwright-core 1.65 exposes the snapshot Playwright MCP uses
// publicly: page.ariaSnapshot({ mode: "ai" }), YAML with [ref=eN] handles and
// the contents of iframes. Playwright MCP 1.65 takes exactly this, in full, after
// every action that returns a snapshot (it no longer sends incremental diffs).
//
// Wait strategy, mirroring Playwright MCP 1.65 (playwright-core's tools backend,
// `waitForCompletion` and the tool handlers), so that the baseline waits as long
// as the real tool and no longer:
//   - click, and pressing Enter: while the action runs and for `settle` ms after
//     it, record the requests the page starts. If one of them is a navigation,
//     wait for the main frame's `load` (at most 10 s). Otherwise wait until each
//     recorded request has its response (and, for documents, scripts, styles,
//     XHR and fetch, its full body), at most 5 s, and then `settle` ms more if
//     there were any requests.
//   - type (fill), select, check, other keys: Playwright MCP does not wait after
//     these; neither do we. The snapshot follows at once.
//   - goto and opening a scenario's page: goto until `domcontentloaded`, then the
//     `load` event, at most 5 s, as browser_navigate does.
// Actions use Playwright's locators (getByRole / getByLabel, exact names) with
// Playwright MCP's default action timeout of 5 s.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { chromium } from "playwright-core";

const ACTION_TIMEOUT_MS = 5000;
const NAVIGATION_LOAD_TIMEOUT_MS = 10000;
const GOTO_LOAD_TIMEOUT_MS = 5000;
const REQUESTS_TIMEOUT_MS = 5000;
const BODY_RESOURCE_TYPES = ["document", "stylesheet", "script", "xhr", "fetch"];

function usage(message) {
  process.stderr.write(`aria.mjs: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const here = dirname(fileURLToPath(import.meta.url));
  const options = {
    base: process.env.UIDELTA_WEB_BASE ?? "",
    scenarios: join(here, "..", "browser-scenarios.json"),
    only: null,
    repeat: 1,
    settleMs: 500,
    snapshot: "ai",
    chromium: "/usr/bin/chromium",
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${flag} needs a value`);
      return argv[++i];
    };
    const count = (text, min) => {
      const n = Number(text);
      if (!Number.isInteger(n) || n < min) usage(`${flag} needs a whole number >= ${min}, not ${text}`);
      return n;
    };
    switch (flag) {
      case "--base": options.base = value(); break;
      case "--scenarios": options.scenarios = value(); break;
      case "--only": options.only = value().split(",").filter(Boolean); break;
      case "--repeat": options.repeat = count(value(), 1); break;
      case "--settle-ms": options.settleMs = count(value(), 0); break;
      case "--snapshot": options.snapshot = value(); break;
      case "--chromium": options.chromium = value(); break;
      case "-h": case "--help":
        process.stdout.write(readFileSync(fileURLToPath(import.meta.url), "utf8")
          .split("\n").filter((l) => l.startsWith("//")).map((l) => l.slice(3)).join("\n") + "\n");
        process.exit(0);
      default: usage(`unknown argument ${flag}`);
    }
  }
  if (!options.base) usage("no --base URL (or $UIDELTA_WEB_BASE) where fixtures/web is served");
  if (!options.base.endsWith("/")) options.base += "/";
  if (!["ai", "body"].includes(options.snapshot)) usage(`--snapshot is ai or body, not ${options.snapshot}`);
  return options;
}

function loadScenarios(path) {
  let text;
  try {
    text = readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (error) {
    usage(`reading scenarios from ${path === "-" ? "stdin" : path}: ${error.message}`);
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    usage(`scenarios in ${path} are not JSON: ${error.message}`);
  }
  const list = Array.isArray(parsed) ? parsed : parsed?.scenarios;
  if (!Array.isArray(list)) usage(`${path}: expected a list of scenarios or {"scenarios": [...]}`);
  for (const [index, scenario] of list.entries()) {
    if (typeof scenario?.name !== "string" || typeof scenario?.page !== "string" || !Array.isArray(scenario?.steps)) {
      usage(`${path}: scenario ${index} needs "name", "page" and "steps"`);
    }
    for (const [n, step] of scenario.steps.entries()) describe(step, `${scenario.name} step ${n + 1}`);
  }
  return list;
}

/** `"<role> <name>"` -> { role, name }; the name may contain spaces and is optional. */
function roleAndName(target) {
  const space = target.indexOf(" ");
  return space < 0 ? { role: target, name: undefined } : { role: target.slice(0, space), name: target.slice(space + 1) };
}

const KINDS = ["click", "type", "press", "check", "uncheck", "select", "goto"];

/** The step's kind and a one-line description; exits on a malformed step. */
function describe(step, where) {
  const kinds = KINDS.filter((kind) => step && Object.hasOwn(step, kind));
  if (kinds.length !== 1) usage(`${where}: a step has exactly one of ${KINDS.join(", ")}`);
  const kind = kinds[0];
  const arg = step[kind];
  const pair = Array.isArray(arg) && arg.length === 2 && arg.every((a) => typeof a === "string");
  const ok = ["type", "select"].includes(kind) ? pair : kind === "press" ? typeof arg === "string" || pair : typeof arg === "string";
  if (!ok) usage(`${where}: bad argument for ${kind}: ${JSON.stringify(arg)}`);
  return { kind, arg, text: `${kind} ${Array.isArray(arg) ? arg.map((a) => JSON.stringify(a)).join(" ") : arg}` };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `action` and waits afterwards the way Playwright MCP's waitForCompletion does. */
async function actAndSettle(page, action, settleMs) {
  const requests = [];
  const onRequest = (request) => requests.push(request);
  page.on("request", onRequest);
  const started = performance.now();
  let acted;
  try {
    await action();
    acted = performance.now();
    await sleep(settleMs);
  } finally {
    page.off("request", onRequest);
  }
  if (requests.some((request) => request.isNavigationRequest())) {
    await page.mainFrame().waitForLoadState("load", { timeout: NAVIGATION_LOAD_TIMEOUT_MS }).catch(() => {});
  } else if (requests.length) {
    const done = requests.map((request) => BODY_RESOURCE_TYPES.includes(request.resourceType())
      ? request.response().then((response) => response?.finished()).catch(() => {})
      : request.response().catch(() => {}));
    await Promise.race([Promise.all(done), sleep(REQUESTS_TIMEOUT_MS)]);
    await sleep(settleMs);
  }
  return { actionMs: acted - started, settleMs: performance.now() - acted };
}

/** Runs `action` with no wait after it. */
async function actOnly(action) {
  const started = performance.now();
  await action();
  return { actionMs: performance.now() - started, settleMs: 0 };
}

/** goto as browser_navigate does it: until DOMContentLoaded, then `load` (at most 5 s). */
async function navigate(page, url) {
  const started = performance.now();
  await page.goto(url, { waitUntil: "domcontentloaded" });
  const loaded = performance.now();
  await page.waitForLoadState("load", { timeout: GOTO_LOAD_TIMEOUT_MS }).catch(() => {});
  return { actionMs: loaded - started, settleMs: performance.now() - loaded };
}

async function perform(page, step, options) {
  const opts = { timeout: ACTION_TIMEOUT_MS };
  const { kind, arg } = describe(step, "step");
  switch (kind) {
    case "click": {
      const { role, name } = roleAndName(arg);
      const target = page.getByRole(role, { name, exact: true });
      return actAndSettle(page, () => target.click(opts), options.settleMs);
    }
    case "type":
      return actOnly(() => page.getByLabel(arg[0], { exact: true }).fill(arg[1], opts));
    case "press": {
      const [label, key] = Array.isArray(arg) ? arg : [null, arg];
      const press = label === null
        ? () => page.keyboard.press(key)
        : () => page.getByLabel(label, { exact: true }).press(key, opts);
      return key === "Enter" ? actAndSettle(page, press, options.settleMs) : actOnly(press);
    }
    case "check":
      return actOnly(() => page.getByLabel(arg, { exact: true }).check(opts));
    case "uncheck":
      return actOnly(() => page.getByLabel(arg, { exact: true }).uncheck(opts));
    case "select":
      return actOnly(() => page.getByLabel(arg[0], { exact: true }).selectOption(arg[1], opts));
    case "goto":
      return navigate(page, new URL(arg, options.base).href);
    default:
      throw new Error(`unknown step kind ${kind}`);
  }
}

async function snapshot(page, mode) {
  const started = performance.now();
  const text = mode === "ai"
    ? await page.ariaSnapshot({ mode: "ai" })
    : await page.locator("body").ariaSnapshot();
  return { text, ms: performance.now() - started };
}

/** Whether the snapshot shows `"<role> <name>"` (an element) or `"text <words>"` (any text). */
function shows(snapshotText, expectation) {
  const { role, name } = roleAndName(expectation);
  if (role === "text") return snapshotText.includes(name ?? "");
  const quoted = name === undefined ? "" : ` ${JSON.stringify(name)}`;
  return snapshotText.split("\n").some((line) => {
    let item = line.trimStart();
    // YAML single-quotes an entry with a colon in it: - 'heading "a: b" [level=1]'
    if (item.startsWith("- '")) item = "- " + item.slice(3).replaceAll("''", "'");
    return item.startsWith(`- ${role}${quoted}`) && /^[\s:[]|^$/.test(item.slice(`- ${role}${quoted}`.length));
  });
}

const round = (ms) => Math.round(ms * 10) / 10;

function emit(record) {
  process.stdout.write(JSON.stringify(record) + "\n");
}

async function runScenario(browser, scenario, run, options) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(ACTION_TIMEOUT_MS);
    const steps = [{ goto: scenario.page }, ...scenario.steps];
    for (const [index, step] of steps.entries()) {
      const { text: action } = describe(step, `${scenario.name} step ${index}`);
      let timing;
      try {
        timing = await perform(page, step, options);
      } catch (error) {
        throw new Error(`${scenario.name} step ${index} (${action}): ${error.message.split("\n")[0]}`);
      }
      const shot = await snapshot(page, options.snapshot);
      const expectMissing = (step.expect ?? []).filter((e) => !shows(shot.text, e));
      const absentPresent = (step.absent ?? []).filter((e) => shows(shot.text, e));
      for (const e of expectMissing) process.stderr.write(`aria.mjs: ${scenario.name} step ${index} (${action}): snapshot lacks ${e}\n`);
      for (const e of absentPresent) process.stderr.write(`aria.mjs: ${scenario.name} step ${index} (${action}): snapshot still shows ${e}\n`);
      emit({
        scenario: scenario.name,
        run,
        step: index,
        action,
        url: page.url(),
        snapshot_text: shot.text,
        snapshot_bytes: Buffer.byteLength(shot.text),
        snapshot_lines: shot.text.split("\n").length,
        action_ms: round(timing.actionMs),
        settle_ms: round(timing.settleMs),
        snapshot_ms: round(shot.ms),
        expect_missing: expectMissing,
        absent_present: absentPresent,
      });
    }
  } finally {
    await context.close();
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  let scenarios = loadScenarios(options.scenarios);
  if (options.only) {
    const unknown = options.only.filter((name) => !scenarios.some((s) => s.name === name));
    if (unknown.length) usage(`no scenario named ${unknown.join(", ")}`);
    scenarios = scenarios.filter((s) => options.only.includes(s.name));
  }
  const browser = await chromium.launch({
    executablePath: options.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    for (let run = 1; run <= options.repeat; run++) {
      for (const scenario of scenarios) await runScenario(browser, scenario, run, options);
    }
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  process.stderr.write(`aria.mjs: ${error.message}\n`);
  process.exit(1);
});
