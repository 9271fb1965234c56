import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port.mjs";
import { killGroup } from "./process-group.js";
import { startFeed, type Feed } from "../fakes/feed.mjs";

/**
 * Poll triggers killed mid-work: the hub as a user runs it (`npm start`) polls a local feed that
 * keeps growing, and is killed with SIGKILL, whole process group and all, while polls and the
 * runs they start are in flight, then started again on the same state. Once the feed is stable,
 * every item added after an agent's baseline must have started exactly one run of that agent
 * (DESIGN §5: per-key idempotent starts, keys remembered in the agent's object, the cron
 * backstop for a lost alarm), and none of the baseline items any.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const AGENTS = 5;
const INTERVAL_SECONDS = 1;
const BASELINE_ITEMS = 3;
/**
 * New items per agent: GROWTH_ITEMS, one every GROW_EVERY_MS through the kills and restarts, and
 * a burst of BURST_ITEMS before each targeted kill (40 in all).
 */
const GROWTH_ITEMS = 24;
const GROW_EVERY_MS = 1500;
const BURST_ITEMS = 8;
/** The feed answers this slowly, so a kill often lands while a poll's call is out. */
const FEED_LATENCY_MS = 150;
/**
 * When each kill comes: the first at some moment while the feed grows and the agents poll every
 * second; the next ones after a burst of BURST_ITEMS new items per feed, this long after the feed
 * answered the first poll that reads the burst, while the polls are starting one run per item.
 * (An agent whose alarm was cut short by a kill polls again when the Agents SDK's fallback alarm
 * fires, 30 s after that alarm began; one killed between polls, as soon as the hub is up.)
 */
const KILLS: { after: "growing" | "burst"; ms: number }[] = [
  { after: "growing", ms: 3000 },
  { after: "burst", ms: 60 },
  { after: "burst", ms: 180 },
];
/**
 * How long, after the last restart and the last item, every item may take to have its run: the
 * fallback alarm comes within 30 s; were an alarm lost altogether, the cron backstop wakes an agent
 * whose poll is 90 s overdue at the next minute's tick.
 */
const SETTLE_LIMIT_MS = 150_000;

let feed: Feed;
let stateDir = "";
let port = 0;
let hub: ChildProcess | undefined;
/** Every process group started, so none outlives the test even if a kill went wrong. */
const groups: number[] = [];
let hubLog = "";
/** Reloads of the Worker by wrangler dev (a source file changed): each is one more crash of the Worker, storage kept. */
let reloadCount = 0;
const reloads = () => reloadCount;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts `node scripts/start.mjs` leading its own process group; resolves once the hub answers, with the key a first start prints. */
async function startNpmStart(): Promise<string | undefined> {
  // Five agents polling every second call a tool 300 times a minute: the limits are not what this drill is about.
  const vars = ["TOOL_RATE_LIMIT_PER_MINUTE:100000", "REQUEST_RATE_LIMIT_PER_MINUTE:100000", "USER_RATE_LIMIT_PER_MINUTE:100000"];
  const child = spawn(process.execPath, ["scripts/start.mjs", ...vars.flatMap((v) => ["--var", v])], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HUB_STATE_DIR: stateDir },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  hub = child;
  groups.push(child.pid!);
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    reloadCount += chunk.toString().split("Reloading local server").length - 1;
    hubLog = (hubLog + chunk.toString()).slice(-30_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const deadline = Date.now() + 120_000;
  while (!/is running at/.test(output)) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${hubLog}`);
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${hubLog}`);
    await sleep(100);
  }
  return output.match(/API key:\s+(ahk_test_\S+)/)?.[1];
}

beforeAll(async () => {
  feed = await startFeed({ latencyMs: FEED_LATENCY_MS });
  stateDir = mkdtempSync(path.join(os.tmpdir(), "hub-poll-crash-"));
  port = await freePort();
}, 30_000);

afterAll(async () => {
  // Whatever happened, no wrangler or workerd is left behind.
  for (const pgid of groups) await killGroup(pgid);
  await feed?.close();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 30_000);

interface PollingAgent {
  name: string;
  workflowId: number;
  agentId: string;
  baseline: string[];
}

describe("npm start killed while polls and their runs are in flight", () => {
  it("starts exactly one run per item added after the baseline, none for the baseline, across SIGKILLs", async () => {
    const key = await startNpmStart();
    expect(key).toBeTruthy();
    const api = apiOf(key);

    // Each agent polls its own feed, which holds a few items before it is deployed: its baseline.
    const agents: PollingAgent[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const name = `agent-${i}`;
      const baseline = Array.from({ length: BASELINE_ITEMS }, (_, j) => feed.add(name, `${name}-base-${j}`).id);
      const workflow = await api("/v1/workflows", {
        workflow_name: `Poll drill ${i}`,
        description: "one run per new feed item",
        trigger_type: "poll",
        trigger_config: {
          tool: "http_request",
          arguments: { url: feed.url(name), method: "GET" },
          interval_seconds: INTERVAL_SECONDS,
          items_path: "body.items",
          id_path: "id",
          emit: "each",
        },
        steps: [{ id: "note", type: "set", values: { seen: "{{input.item.id}}" } }],
      });
      const agent = await api("/v1/agents/deploy", { workflow_id: workflow.id });
      agents.push({ name, workflowId: workflow.id, agentId: agent.agent_id, baseline });
    }
    /** The agent's events log, newest first (a few pages at most: quiet polls share one entry). */
    const eventsOf = async (agent: PollingAgent) => {
      const events: any[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 10; page++) {
        const answer: any = await api(`/v1/agents/${agent.agentId}/events?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
        events.push(...answer.data);
        cursor = answer.next_cursor;
        if (!cursor) break;
      }
      return events;
    };
    const baselineDeadline = Date.now() + 60_000;
    for (const agent of agents) {
      while (!(await eventsOf(agent)).some((e) => e.source === "poll" && e.detail?.startsWith("First poll"))) {
        if (Date.now() > baselineDeadline) throw new Error(`${agent.name}: no baseline poll within 60 s\n${hubLog.slice(-3000)}`);
        await sleep(200);
      }
    }

    // The feeds grow, one item per agent every GROW_EVERY_MS, whatever state the hub is in, and
    // in bursts before the targeted kills.
    const added = new Map<string, string[]>(agents.map((a) => [a.name, []]));
    let grown = 0;
    const grow = () => {
      for (const agent of agents) added.get(agent.name)!.push(feed.add(agent.name, `${agent.name}-new-${String(grown).padStart(2, "0")}`).id);
      grown++;
    };
    let ticks = 0;
    const growing = new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        grow();
        if (++ticks === GROWTH_ITEMS) {
          clearInterval(timer);
          resolve();
        }
      }, GROW_EVERY_MS);
    });
    const reads = () => agents.reduce((n, a) => n + feed.reads(a.name).length, 0);
    const timeline: string[] = [];
    /** When each restarted hub answered, to tell how soon each agent polled again. */
    const ups: number[] = [];
    const downs: number[] = [];
    /** The items (by growth index) of the burst before each targeted kill, by the kill's index. */
    const burstsOf = new Map<number, { from: number; to: number }>();
    const t0 = Date.now();
    const at = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
    for (const kill of KILLS) {
      if (kill.after === "growing") {
        await sleep(kill.ms);
      } else {
        // A burst, and the first read after it: that poll starts the burst's runs, one after
        // another, a moment after the feed answers.
        const from = grown;
        for (let i = 0; i < BURST_ITEMS; i++) grow();
        burstsOf.set(downs.length, { from, to: grown });
        const before = reads();
        const deadline = Date.now() + 45_000;
        while (reads() === before && Date.now() < deadline) await sleep(2);
        await sleep(FEED_LATENCY_MS + kill.ms);
      }
      timeline.push(`${at()} kill (${grown} items added per agent, ${reads()} feed reads so far)`);
      await killGroup(hub!.pid!);
      downs.push(Date.now());
      await startNpmStart();
      ups.push(Date.now());
      timeline.push(`${at()} up again`);
    }
    await growing;
    const settledFrom = Date.now();
    timeline.push(`${at()} feed stable`);

    // Every run each agent started, by the item it carries.
    const runsOf = async (agent: PollingAgent) => {
      const runs: any[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await api(`/v1/workflows/${agent.workflowId}/executions?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
        runs.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor);
      return runs;
    };
    const report = async () =>
      Promise.all(
        agents.map(async (agent) => {
          const runs = await runsOf(agent);
          const count = new Map<string, number>();
          for (const run of runs) count.set(String(run.input_data?.item?.id), (count.get(String(run.input_data?.item?.id)) ?? 0) + 1);
          const expected = added.get(agent.name)!;
          return {
            agent,
            runs,
            missing: expected.filter((id) => !count.has(id)),
            duplicated: [...count].filter(([, n]) => n > 1).map(([id, n]) => `${id} ×${n}`),
            baselineRuns: agent.baseline.filter((id) => count.has(id)),
            unexpected: [...count.keys()].filter((id) => !expected.includes(id) && !agent.baseline.includes(id)),
            unfinished: runs.filter((r) => r.status !== "succeeded").map((r) => `${r.id} ${r.status} ${r.error_message ?? ""}`),
          };
        }),
      );
    let last = await report();
    const settled = (r: typeof last) => r.every((a) => a.missing.length === 0 && a.unfinished.length === 0);
    while (!settled(last) && Date.now() - settledFrom < SETTLE_LIMIT_MS) {
      await sleep(2000);
      last = await report();
    }
    // Missing items may yet arrive, duplicates never leave: a moment more shows duplicates that were still coming.
    await sleep(3 * INTERVAL_SECONDS * 1000);
    last = await report();
    const settleSeconds = (Date.now() - settledFrom) / 1000;

    // How soon after each restart answered each agent read its feed again (its alarm, or the backstop).
    const resumed = ups.map((up, i) => {
      const delays = agents.map((a) => feed.reads(a.name).find((t) => t >= downs[i]! && (downs[i + 1] === undefined || t < downs[i + 1]!)));
      return delays.map((t) => (t === undefined ? "-" : ((t - up) / 1000).toFixed(1))).join("/");
    });
    timeline.push(`first poll of each agent after each restart, s: ${resumed.join(", ")}`);
    // Where the targeted kills landed: how many of each agent's burst had a run before the kill
    // (0 < n < all: the kill cut that agent's poll between two starts).
    for (const [kill, burst] of burstsOf) {
      const cuts = last.map((a) => {
        const ids = new Set(added.get(a.agent.name)!.slice(burst.from, burst.to));
        return a.runs.filter((r) => ids.has(String(r.input_data?.item?.id)) && Date.parse(r.created_at) < downs[kill]!).length;
      });
      timeline.push(`kill ${kill + 1}: runs of the ${BURST_ITEMS}-item burst started before it, per agent: ${cuts.join("/")}`);
    }

    const problems = last.filter((a) => a.missing.length || a.duplicated.length || a.baselineRuns.length || a.unexpected.length || a.unfinished.length);
    if (problems.length) {
      const details = await Promise.all(
        problems.map(async (a) => {
          const events = await eventsOf(a.agent);
          return [
            `${a.agent.name} (agent ${a.agent.agentId}, workflow ${a.agent.workflowId}): ${a.runs.length} runs for ${added.get(a.agent.name)!.length} new items, ${feed.reads(a.agent.name).length} feed reads`,
            `  missing: ${a.missing.join(", ") || "none"}`,
            `  duplicated: ${a.duplicated.join(", ") || "none"}`,
            `  runs for baseline items: ${a.baselineRuns.join(", ") || "none"}`,
            `  runs for items never added: ${a.unexpected.join(", ") || "none"}`,
            `  unfinished: ${a.unfinished.join("; ") || "none"}`,
            `  events (newest first):`,
            ...events.map((e) => `    ${e.received_at} ${e.source} ${e.outcome} ${e.event_id ?? ""} ${e.execution_id ?? ""} ${e.detail ?? ""}`),
          ].join("\n");
        }),
      );
      console.error(
        `poll crash drill timeline (${reloads()} reloads of the Worker besides the kills):\n  ${timeline.join("\n  ")}\n\n${details.join("\n\n")}\n\n--- hub output ---\n${hubLog.slice(-5000)}`,
      );
    }
    for (const a of last) {
      expect(a.missing, `${a.agent.name}: items without a run`).toEqual([]);
      expect(a.duplicated, `${a.agent.name}: items with more than one run`).toEqual([]);
      expect(a.baselineRuns, `${a.agent.name}: runs for baseline items`).toEqual([]);
      expect(a.unexpected, `${a.agent.name}: runs for items never added`).toEqual([]);
      expect(a.unfinished, `${a.agent.name}: runs that did not succeed`).toEqual([]);
    }

    // Whether the kills cut polls short shows in the summary: a burst partly started before a kill,
    // and redone polls that found a run an interrupted one had started ("duplicate" in the events).
    const allEvents = (await Promise.all(agents.map(eventsOf))).flat();
    const replays = allEvents.filter((e) => e.source === "poll" && e.outcome === "duplicate").length;
    console.log(
      `poll crash drill: ${AGENTS} agents every ${INTERVAL_SECONDS} s, ${grown} new items each, ${KILLS.length} kills ` +
        `(${timeline.join("; ")}); every item had exactly one run ${settleSeconds.toFixed(1)} s after the feed was stable; ` +
        `${replays} starts found already made by an interrupted poll` +
        (reloads() ? `; the Worker was also reloaded ${reloads()} times (a source file changed while it ran)` : ""),
    );
  }, 600_000);
});

/** GETs (no body) and POSTs to the hub on `port` with `key`, answering the parsed JSON; a non-2xx throws. */
function apiOf(key: string | undefined) {
  return async (pathname: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}${pathname}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${pathname}: ${response.status} ${text}`);
    return JSON.parse(text);
  };
}
