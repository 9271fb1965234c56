import type { Db } from "../db/client";
import { encodeFor, prepareOnce } from "../db/statement-cache";
import { executionSteps, type ExecutionStep } from "../db/schema";
import type { Step } from "../workflows/steps";
import { ROWS_PER_STATEMENT, STEP_COLUMNS, type StepRow, checkpointUpsert } from "./run-statements";
import { utf8Length } from "../lib/bytes";
import { resultNotKept } from "./stored-bytes";

/** What a step records: its status and attempts, and what it produced or why it stopped. */
export interface StepState {
  status: ExecutionStep["status"];
  attempts: number;
  result?: unknown;
  error?: string;
  resumeAt?: Date;
  startedAt?: Date;
  tokensUsed?: number;
  /** A code step's console lines. */
  logs?: string[];
  /** An llm step's model usage over its attempts (kept from an earlier record when not given). */
  usage?: ExecutionStep["usage"];
  /** A failure the API names with a code (`budget_exceeded`). */
  errorCode?: string;
}

/** What `take` hands to a batch: the upserts, the bytes they add to the run, and the first result refused for size. */
export interface TakenCheckpoints {
  statements: D1PreparedStatement[];
  storedDelta: number;
  overflow?: StepRow;
}

/**
 * A run's step records as its runner knows them: those read when it took the lease plus what it
 * has recorded since. Recorded rows wait in memory until `take` turns them into upserts for the
 * runner's next batch (see ExecutionRun.checkpoint for when that is).
 */
export class Checkpoints {
  private unwritten = new Map<string, StepRow>();

  constructor(
    private readonly executionId: string,
    private readonly rows: Map<string, ExecutionStep>,
    /** Bytes of results written for the run: its row's count when the lease was taken, plus what was taken since. */
    private storedBytes: number,
    /** MAX_RUN_STORED_BYTES. */
    private readonly storedLimit: number,
  ) {}

  get(key: string): ExecutionStep | undefined {
    return this.rows.get(key);
  }

  record(step: Step, key: string, state: StepState): void {
    const now = new Date();
    const finished = state.status === "succeeded" || state.status === "failed" || state.status === "skipped";
    const existing = this.rows.get(key);
    const row: StepRow = {
      executionId: this.executionId,
      stepKey: key,
      stepId: step.id,
      type: step.type,
      status: state.status,
      attempts: state.attempts,
      result: state.result ?? null,
      errorMessage: state.error ?? null,
      resumeAt: state.resumeAt ?? null,
      position: existing?.position ?? this.rows.size,
      startedAt: state.startedAt ?? existing?.startedAt ?? now,
      finishedAt: finished ? now : null,
      tokensUsed: state.tokensUsed ?? existing?.tokensUsed ?? 0,
      logs: state.logs ?? null,
      usage: state.usage ?? existing?.usage ?? null,
      errorCode: state.errorCode ?? null,
    };
    this.rows.set(key, { ...row } as ExecutionStep);
    this.unwritten.set(key, row);
  }

  tokensUsed(): number {
    return [...this.rows.values()].reduce((sum, step) => sum + (step.tokensUsed ?? 0), 0);
  }

  inOrder(): ExecutionStep[] {
    return [...this.rows.values()].sort((a, b) => a.position - b.position);
  }

  /**
   * The upserts of the rows not written yet, each guarded by the lease; they count as written
   * from here on. Rows go several to a statement (building and sending one statement per step
   * was most of a pure run's cost), chunked to stay under D1's 100 bound parameters, and each
   * statement's text is built once per number of rows.
   *
   * Their results' bytes (`storedDelta`) go into the run's `stored_bytes` in the same batch. A
   * result that would take the run past MAX_RUN_STORED_BYTES is not kept: its step is recorded
   * failed, saying why, and `overflow` is the first such row; the runner then fails the run.
   */
  take(db: Db, token: string): TakenCheckpoints {
    const rows = [...this.unwritten.values()];
    this.unwritten.clear();
    let storedDelta = 0;
    let overflow: StepRow | undefined;
    const results = rows.map((row, i) => {
      const text = encodeFor(executionSteps.result, row.result) as string | null;
      const logs = encodeFor(executionSteps.logs, row.logs) as string | null;
      const bytes = (text === null ? 0 : utf8Length(text)) + (logs === null ? 0 : utf8Length(logs));
      if (this.storedBytes + storedDelta + bytes <= this.storedLimit) {
        storedDelta += bytes;
        return text;
      }
      const failed: StepRow = {
        ...row,
        status: "failed",
        result: null,
        logs: null,
        errorMessage: resultNotKept(bytes, this.storedLimit),
        finishedAt: row.finishedAt ?? new Date(),
      };
      this.rows.set(row.stepKey, { ...failed } as ExecutionStep);
      rows[i] = failed;
      overflow ??= failed;
      return null;
    });
    this.storedBytes += storedDelta;
    const statements: D1PreparedStatement[] = [];
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
      const values: Record<string, unknown> = { executionId: this.executionId, token };
      chunk.forEach((row, r) => {
        for (const [key, column] of STEP_COLUMNS) values[`${r}.${key}`] = key === "result" ? results[i + r] : encodeFor(column, row[key]);
      });
      statements.push(prepareOnce(db.$client, `checkpoints:${chunk.length}`, () => checkpointUpsert(db, chunk.length), values));
    }
    return { statements, storedDelta, overflow };
  }
}
