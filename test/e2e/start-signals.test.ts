import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port.mjs";

/**
 * `npm start` as a service manager or `docker stop` ends it: SIGTERM to npm (which passes it only
 * to the `sh -c` it runs the script in), or the parent killed outright. Whatever the way, the hub
 * must stop answering and no process it started (start.mjs, wrangler, workerd) may be left.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
/** How long the whole tree gets to go away after the signal. */
const STOP_LIMIT_MS = 15_000;
const START_LIMIT_MS = 120_000;

interface Row {
  pid: number;
  ppid: number;
  stat: string;
  args: string;
}

interface Started {
  /** The process the test started (npm, or a parent of start.mjs); it leads its own process group. */
  leader: ChildProcess;
  origin: string;
  output: () => string;
}

/** Every process group and pid a test started, so none outlives the file even if a test failed. */
const groups = new Set<number>();
const pids = new Set<number>();
const stateDirs: string[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function processTable(): Row[] {
  return execFileSync("ps", ["-A", "-o", "pid=,ppid=,stat=,args="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => {
      const [pid, ppid, stat, ...args] = line.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), stat: stat!, args: args.join(" ") };
    });
}

/** `root` and every process below it. */
function treeOf(root: number): Row[] {
  const table = processTable();
  const tree = table.filter((row) => row.pid === root);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of table)
      if (tree.some((t) => t.pid === row.ppid) && !tree.some((t) => t.pid === row.pid)) {
        tree.push(row);
        grew = true;
      }
  }
  return tree;
}

/** Those of `pids` that are live processes (an exited one nobody has reaped yet does not count). */
function running(pids: Iterable<number>): number[] {
  const signalled = [...pids].filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
  if (signalled.length === 0) return [];
  const table = processTable();
  return signalled.filter((pid) => table.some((row) => row.pid === pid && !row.stat.startsWith("Z")));
}

async function answers(origin: string): Promise<boolean> {
  try {
    const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

/** Starts `command` leading its own process group on a fresh port and state; resolves once the hub answers. */
async function start(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Started> {
  const port = await freePort();
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "hub-signals-"));
  stateDirs.push(stateDir);
  const leader = spawn(command, args, {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HUB_STATE_DIR: stateDir },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  groups.add(leader.pid!);
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  leader.stdout!.on("data", keep);
  leader.stderr!.on("data", keep);
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_LIMIT_MS;
  while (!/is running at/.test(output) || !(await answers(origin))) {
    if (leader.exitCode !== null) throw new Error(`${command} ${args.join(" ")} exited with ${leader.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`the hub did not come up:\n${output}`);
    await sleep(200);
  }
  return { leader, origin, output: () => output };
}

/** The hub's processes under `leader`, recorded for the cleanup; checks that wrangler and workerd are among them. */
function recordTree(leader: ChildProcess): Row[] {
  const tree = treeOf(leader.pid!);
  for (const row of tree) pids.add(row.pid);
  expect(tree.map((row) => row.args)).toEqual(
    expect.arrayContaining([expect.stringContaining("scripts/start.mjs"), expect.stringContaining("wrangler"), expect.stringMatching(/workerd/)]),
  );
  return tree;
}

/** Waits until the hub no longer answers and none of `tree` runs, for at most STOP_LIMIT_MS. */
async function expectAllGone(origin: string, tree: Row[], output: () => string) {
  const deadline = Date.now() + STOP_LIMIT_MS;
  const left = () => {
    const live = running(tree.map((row) => row.pid));
    return tree.filter((row) => live.includes(row.pid));
  };
  while (Date.now() < deadline && (left().length > 0 || (await answers(origin)))) await sleep(250);
  const context = `still running:\n${left()
    .map((row) => `${row.pid} ${row.args}`)
    .join("\n")}\n--- output ---\n${output().slice(-3000)}`;
  expect(await answers(origin), context).toBe(false);
  expect(
    left().map((row) => row.args),
    context,
  ).toEqual([]);
}

/** SIGKILL to every group and pid started; waits until they are gone. */
async function killEverything() {
  for (const group of groups) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // gone already
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  for (let i = 0; i < 100 && running(pids).length > 0; i++) await sleep(100);
  groups.clear();
  pids.clear();
}

afterEach(killEverything, 30_000);

afterAll(async () => {
  await killEverything();
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
}, 30_000);

/** The environment of a shell outside npm: start.mjs must not take itself for an npm script. */
function withoutNpm(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_")));
}

describe("stopping `npm start`", () => {
  it("SIGTERM to npm stops start.mjs, wrangler and workerd, and npm exits; `npm start -- --var` reaches the Worker", async () => {
    const hub = await start("npm", ["start", "--", "--var", "REQUEST_RATE_LIMIT_PER_MINUTE:77"]);
    const tree = recordTree(hub.leader);

    // The var given on the command line wins over wrangler.toml although .dev.vars exists.
    expect(existsSync(path.join(ROOT, ".dev.vars"))).toBe(true);
    const key = hub.output().match(/API key:\s+(ahk_test_\S+)/)?.[1];
    expect(key, hub.output()).toBeTruthy();
    const me = await fetch(`${hub.origin}/v1/me`, { headers: { Authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    expect(me.headers.get("RateLimit-Policy")).toMatch(/^"requests";q=77;w=60,/);

    const npmExited = new Promise((resolve) => hub.leader.once("exit", (code, signal) => resolve(signal ?? code)));
    process.kill(hub.leader.pid!, "SIGTERM");
    await expectAllGone(hub.origin, tree, hub.output);
    expect(await Promise.race([npmExited, sleep(STOP_LIMIT_MS).then(() => "still running")])).not.toBe("still running");
  }, 180_000);

  it("a SIGKILLed npm takes the hub with it (its `sh -c` stays behind, start.mjs watches npm too)", async () => {
    const hub = await start("npm", ["start"]);
    const tree = recordTree(hub.leader);
    process.kill(hub.leader.pid!, "SIGKILL");
    await expectAllGone(hub.origin, tree, hub.output);
  }, 180_000);

  it("start.mjs stops the hub when the process that started it is SIGKILLed", async () => {
    const parent = `require("node:child_process").spawn(process.execPath, ["scripts/start.mjs"], { stdio: "inherit" }); setInterval(() => {}, 1 << 30);`;
    const hub = await start(process.execPath, ["-e", parent], withoutNpm());
    const tree = recordTree(hub.leader);
    process.kill(hub.leader.pid!, "SIGKILL");
    await expectAllGone(hub.origin, tree, hub.output);
  }, 180_000);
});
