import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./free-port.js";

/**
 * The hub as a user runs it (`npm start`, i.e. scripts/start.mjs) is killed with SIGKILL, whole
 * process group and all (wrangler, workerd, the in-memory queue), three times while executions
 * are in flight, and started again on the same state. Every execution must still finish, and no
 * step that had succeeded may run again.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const EXECUTIONS = 30;
/** How long after the submissions (then after each restart) each kill comes. */
const KILL_AFTER_MS = [300, 2500, 1200];
const KILLS = KILL_AFTER_MS.length;

interface SideEffect {
  execution: string;
  step: string;
  idempotencyKey: string | undefined;
  at: number;
}

let sink: Server;
let sinkOrigin = "";
const effects: SideEffect[] = [];
let stateDir = "";
let port = 0;
let hub: ChildProcess | undefined;
let hubLog = "";

/** Starts `node scripts/start.mjs` leading its own process group; resolves once the hub answers. */
async function startNpmStart(): Promise<string | undefined> {
  const child = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HUB_STATE_DIR: stateDir },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  hub = child;
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    hubLog = (hubLog + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const deadline = Date.now() + 120_000;
  while (!/is running at/.test(output)) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${hubLog}`);
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${hubLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return output.match(/API key:\s+(ahk_test_\S+)/)?.[1];
}

/** SIGKILL to the whole group: nothing gets to clean up, exactly like a crash or `kill -9`. */
async function killNpmStart() {
  const child = hub!;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid!, "SIGKILL");
  await exited;
  // workerd may outlive its parent for a moment; wait for the port to be free again.
  for (let i = 0; i < 100; i++) {
    const busy = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (!busy) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  // The target of every side effect: records which step of which execution called, and with
  // which idempotency key. It answers a little slowly, so kills land while calls are in flight.
  sink = createServer((req, res) => {
    const [, , execution, step] = (req.url ?? "").split("/");
    effects.push({ execution: execution!, step: step!, idempotencyKey: req.headers["idempotency-key"] as string | undefined, at: Date.now() });
    req.resume();
    setTimeout(() => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end('{"ok":true}');
    }, 150);
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", () => resolve()));
  sinkOrigin = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  stateDir = mkdtempSync(path.join(os.tmpdir(), "hub-crash-"));
  port = await freePort();
}, 30_000);

afterAll(async () => {
  if (hub && hub.exitCode === null) {
    try {
      process.kill(-hub.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
  sink?.close();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe("npm start killed mid-work", () => {
  it("finishes every execution after repeated SIGKILLs of the whole process group, never repeating a succeeded step", async () => {
    const key = await startNpmStart();
    expect(key).toBeTruthy();
    const origin = `http://127.0.0.1:${port}`;
    const api = async (pathname: string, body?: unknown) => {
      const response = await fetch(`${origin}${pathname}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${pathname}: ${response.status} ${text}`);
      return JSON.parse(text);
    };
    const effect = (id: string) => ({
      id,
      type: "tool",
      tool: "http_request",
      arguments: { method: "POST", url: `${sinkOrigin}/e/{{execution.id}}/${id}`, body: { step: id } },
    });
    const workflow = await api("/v1/workflows", {
      workflow_name: "Crash drill",
      description: "a side effect, a 2 s delay, two more side effects",
      steps: [effect("first"), { id: "pause", type: "delay", seconds: 2 }, effect("second"), effect("third")],
    });
    // Each round submits a batch and kills the hub a varied moment later (first step, delay,
    // last steps), so every kill lands on work in flight, older batches' included.
    const ids: string[] = [];
    for (const waitMs of KILL_AFTER_MS) {
      for (let i = 0; i < EXECUTIONS / KILLS; i++)
        ids.push((await api(`/v1/workflows/${workflow.id}/execute`, { input_data: { n: ids.length } })).execution_id);
      await sleep(waitMs);
      await killNpmStart();
      await startNpmStart();
    }
    const restartedAt = Date.now();
    const inFlight = (await api(`/v1/workflows/${workflow.id}/executions?limit=100`)).data.filter(
      (e: any) => e.status === "queued" || e.status === "running",
    ).length;
    // The drill means something only if the kills left work unfinished.
    expect(inFlight).toBeGreaterThan(0);

    // Every execution reaches a final state within 60 s of the last restart.
    const isFinal = (e: any) => ["succeeded", "failed", "cancelled"].includes(e.status);
    while (Date.now() - restartedAt < 60_000) {
      const { data } = await api(`/v1/workflows/${workflow.id}/executions?limit=100`);
      if (data.length === EXECUTIONS && data.every(isFinal)) break;
      await sleep(1000);
    }
    const drainSeconds = (Date.now() - restartedAt) / 1000;
    const final = await Promise.all(ids.map((id) => api(`/v1/executions/${id}`)));
    const unfinished = final.filter((e) => !isFinal(e));
    expect(
      unfinished.map((e) => `${e.id}: ${e.status}`),
      hubLog.slice(-3000),
    ).toEqual([]);
    expect(final.map((e) => e.status)).toEqual(ids.map(() => "succeeded"));

    let repeated = 0;
    for (const execution of final) {
      const mine = effects.filter((e) => e.execution === execution.id);
      // Steps ran in order: no side effect of a later step before the first of an earlier one.
      const firstAt = (step: string) => Math.min(...mine.filter((e) => e.step === step).map((e) => e.at));
      expect(firstAt("first")).toBeLessThanOrEqual(firstAt("second"));
      expect(firstAt("second")).toBeLessThanOrEqual(firstAt("third"));
      for (const record of execution.steps) {
        expect(record.status).toBe("succeeded");
        if (record.type !== "tool") continue;
        const calls = mine.filter((e) => e.step === record.step_id);
        // A step runs again only when its attempt was cut off before its checkpoint: each
        // attempt makes at most one call, so a succeeded step was never run again.
        expect(calls.length).toBeGreaterThanOrEqual(1);
        expect(calls.length).toBeLessThanOrEqual(record.attempts);
        // Every call of one step carries the same key, so a target that honours it acts once.
        expect(new Set(calls.map((c) => c.idempotencyKey))).toEqual(new Set([`${execution.id}:${record.step_id}:0`]));
        repeated += calls.length - 1;
      }
    }
    console.log(
      `crash drill: ${EXECUTIONS} executions, ${KILLS} kills, ${inFlight} unfinished at the last restart, all finished ${drainSeconds.toFixed(1)} s after the last restart, ${repeated} side effect(s) repeated with the same idempotency key`,
    );
  }, 300_000);
});
