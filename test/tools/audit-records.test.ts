import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDb } from "../../src/db/client";
import { TAKEOVER_MS, recordAudit } from "../../src/tools/audit";
import { call, json, newApiKey, newUser } from "../helpers/api";

/**
 * Audit records are written after the answer has gone (so a tool call costs no extra round trip
 * before it answers), and still none may be missing: every call_id answered has its record.
 */
describe("audit records written after the answer", () => {
  it("exist for every call, including calls made at the same time and calls that failed", async () => {
    const { key } = await newApiKey(await newUser());
    const calls = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call("/v1/tools/execute", { token: key, json: { name: "math_evaluate", arguments: { expression: i % 5 === 4 ? "1 / (" : `${i} * 2` } } }).then(json),
      ),
    );
    expect(calls.filter((c) => c.success)).toHaveLength(16);
    const answered = new Set(calls.map((c) => c.call_id));

    let recorded = new Set<string>();
    for (let attempt = 0; attempt < 50 && recorded.size < answered.size; attempt++) {
      const page = await json(await call("/v1/audit-logs?limit=100", { token: key }));
      recorded = new Set(page.data.map((entry: { call_id: string }) => entry.call_id));
      if (recorded.size < answered.size) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect([...answered].filter((id) => !recorded.has(id))).toEqual([]);
  });
});

describe("the audit writer", () => {
  // The database client is one per isolate (createDb): a spy on it must not outlive its test.
  afterEach(() => vi.restoreAllMocks());
  const entry = (userId: number, callId: string) => ({
    userId,
    credentialId: "key_test",
    callId,
    tool: "math_evaluate",
    connectionId: null,
    arguments: { expression: "1 + 1" },
    outcome: "success" as const,
    errorMessage: null,
    durationMs: 1,
    source: "api",
  });
  const stored = async (callIds: string[]) =>
    (
      await env.DB.prepare(`SELECT call_id FROM audit_logs WHERE call_id IN (${callIds.map(() => "?").join(",")})`)
        .bind(...callIds)
        .all<{ call_id: string }>()
    ).results
      .map((row) => row.call_id)
      .sort();

  /** A database whose first audit write waits until `openGate` is called. */
  const firstWriteHeldBack = () => {
    const db = createDb(env.DB);
    const batch = db.batch.bind(db);
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const writes = vi.spyOn(db, "batch").mockImplementation((async (statements: Parameters<typeof batch>[0]) => {
      if (writes.mock.calls.length === 1) await gate;
      return batch(statements);
    }) as unknown as typeof db.batch);
    return { db, writes, openGate: () => openGate() };
  };

  it("writes records gathered together, more than one statement holds, in one go", async () => {
    const user = await newUser();
    const ids = Array.from({ length: 30 }, (_, i) => `call_batch_${crypto.randomUUID()}_${String(i).padStart(2, "0")}`);
    const db = createDb(env.DB);
    await Promise.all(ids.map((id) => recordAudit(db, entry(user.id, id))));
    expect(await stored(ids)).toEqual([...ids].sort());
  });

  it("gathers the records of calls that end while a write is going on into the next write", async () => {
    const user = await newUser();
    const { db, writes, openGate } = firstWriteHeldBack(); // the first write takes its time
    const first = `call_first_${crypto.randomUUID()}`;
    const later = Array.from({ length: 3 }, () => `call_later_${crypto.randomUUID()}`);
    const recorded = [recordAudit(db, entry(user.id, first))];
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(writes).toHaveBeenCalledTimes(1);
    for (const id of later) {
      recorded.push(recordAudit(db, entry(user.id, id)));
      await new Promise((resolve) => setTimeout(resolve, 5)); // each in its own turn
    }
    expect(writes).toHaveBeenCalledTimes(1);
    openGate();
    await Promise.all(recorded);
    expect(writes).toHaveBeenCalledTimes(2);
    expect(await stored([first, ...later])).toEqual([first, ...later].sort());
  });

  it("writes the next records when a write never finishes (its request cut off)", async () => {
    const user = await newUser();
    const { db, writes, openGate } = firstWriteHeldBack(); // the first write never comes back
    try {
      void recordAudit(db, entry(user.id, `call_stuck_${crypto.randomUUID()}`));
      await new Promise((resolve) => setTimeout(resolve, 10));
      const later = Array.from({ length: 3 }, () => `call_after_${crypto.randomUUID()}`);
      const started = Date.now();
      await Promise.all(later.map((id) => recordAudit(db, entry(user.id, id))));
      expect(Date.now() - started).toBeGreaterThanOrEqual(TAKEOVER_MS - 20);
      expect(await stored(later)).toEqual([...later].sort());
      expect(writes).toHaveBeenCalledTimes(2); // the stuck one, then the later records together
    } finally {
      openGate();
    }
  });

  it("writes a batch again when its writer never comes back, and stores each record once", async () => {
    const user = await newUser();
    const { db, writes, openGate } = firstWriteHeldBack(); // the writer's request is cut off mid-write
    const ids = [`call_cut_${crypto.randomUUID()}`, `call_cut_${crypto.randomUUID()}`];
    const [byWriter, byOther] = ids.map((id) => recordAudit(db, entry(user.id, id)));
    await byOther;
    expect(writes).toHaveBeenCalledTimes(2);
    expect(await stored(ids)).toEqual([...ids].sort());
    openGate(); // the first write lands after all: the unique call id keeps one copy
    await byWriter;
    await writes.mock.results[0]!.value;
    expect(await stored(ids)).toEqual([...ids].sort());
  });

  it("keeps the other records when one of a batch cannot be written, and logs the one by call id", async () => {
    const user = await newUser();
    const good = [`call_good_${crypto.randomUUID()}`, `call_good_${crypto.randomUUID()}`];
    const bad = `call_bad_${crypto.randomUUID()}`;
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const db = createDb(env.DB);
      // No such user: the foreign key refuses this record, and with it the batch's statement.
      await Promise.all([recordAudit(db, entry(user.id, good[0]!)), recordAudit(db, entry(2_000_000_000, bad)), recordAudit(db, entry(user.id, good[1]!))]);
      expect(await stored([...good, bad])).toEqual([...good].sort());
      const logged = errors.mock.calls.map((args) => String(args[0]));
      expect(logged.some((line) => line.includes(bad))).toBe(true);
      expect(logged.some((line) => line.includes("key_test"))).toBe(false);
    } finally {
      errors.mockRestore();
    }
  });
});
