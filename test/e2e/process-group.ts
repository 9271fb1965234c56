import { execFile } from "node:child_process";
import { promisify } from "node:util";

// The hub as a person runs it is a process group (scripts/start.mjs, wrangler, workerd): the
// crash drills kill and wait for whole groups.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether any live process of the group is still there (zombies awaiting a reaper do not count). */
export async function groupAlive(pgid: number): Promise<boolean> {
  const { stdout } = await promisify(execFile)("ps", ["-e", "-o", "pgid=,stat="]);
  return stdout.split("\n").some((line) => {
    const [group, stat] = line.trim().split(/\s+/);
    return Number(group) === pgid && !stat?.startsWith("Z");
  });
}

/** SIGKILL to the whole group: nothing gets to clean up, exactly like a crash or `kill -9`. */
export async function killGroup(pgid: number): Promise<void> {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // already gone
  }
  // workerd is reaped a moment after its parent; the next hub must not meet it on the port.
  for (let i = 0; i < 100 && (await groupAlive(pgid)); i++) await sleep(100);
  if (await groupAlive(pgid)) throw new Error(`process group ${pgid} survived SIGKILL`);
}
