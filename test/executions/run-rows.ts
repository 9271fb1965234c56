import { env } from "cloudflare:workers";

export interface SeededRun {
  id: string;
  userId: number;
  workflowId: number;
  status?: string;
  trigger?: string;
  agentId?: string | null;
  input?: Record<string, unknown>;
  error?: string | null;
  createdAt?: number;
  finishedAt?: number | null;
  parentId?: string | null;
}

let counter = 0;
export const runId = (label: string) => `exe_${label}_${Date.now().toString(36)}${counter++}`;

/**
 * Writes runs straight into D1, as the engine would have left them, so lists and sweeps can be
 * tested on many runs of known ages without running them.
 */
export async function seedRuns(runs: SeededRun[]) {
  await env.DB.batch(
    runs.map((run) =>
      env.DB.prepare(
        `INSERT INTO executions (id, workflow_id, user_id, credential_id, workflow_version, steps, settings, variables, input, status,
           error_message, agent_id, trigger_source, parent_execution_id, created_at, updated_at, started_at, finished_at)
         VALUES (?, ?, ?, 'test-credential', 1, '[]', '{}', '{}', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).bind(
        run.id,
        run.workflowId,
        run.userId,
        JSON.stringify(run.input ?? {}),
        run.status ?? "succeeded",
        run.error ?? null,
        run.agentId ?? null,
        run.trigger ?? "manual",
        run.parentId ?? null,
        run.createdAt ?? Date.now(),
        run.createdAt ?? Date.now(),
        run.createdAt ?? Date.now(),
        run.finishedAt === undefined
          ? ["succeeded", "failed", "cancelled"].includes(run.status ?? "succeeded")
            ? (run.createdAt ?? Date.now())
            : null
          : run.finishedAt,
      ),
    ),
  );
}

/** `count` step records for a run, written in one statement. */
export async function seedSteps(executionId: string, count: number) {
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO execution_steps (execution_id, step_key, step_id, type, status, attempts, result, position)
     SELECT ?, 'step' || i, 'step' || i, 'set', 'succeeded', 1, '{"ok":true}', i FROM n`,
  )
    .bind(count, executionId)
    .run();
}

export const stepCount = async (executionId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM execution_steps WHERE execution_id = ?").bind(executionId).first<{ n: number }>())!.n;

export const runExists = async (executionId: string) =>
  (await env.DB.prepare("SELECT 1 AS one FROM executions WHERE id = ?").bind(executionId).first()) !== null;
