/**
 * The start of a run whose insert is deferred (waited-start.ts, event-start.ts): its statements
 * (the insert and the quota check, and for an event its idempotency key and what goes with its
 * start) go first in the run's first write instead of a write of their own before the run. A
 * run of pure steps that ends at once is then one write; any other run writes its start together
 * with its first checkpoint, before its first side effect.
 */
export class DeferredStart {
  /** The row is in the database: the run exists for everyone from here on. */
  written = false;
  private taken = false;
  /** Settles once the batch carrying the start has: resolved if it wrote the row, rejected if not. */
  readonly settled: Promise<void>;
  private resolve!: () => void;
  private reject!: (error: unknown) => void;

  /**
   * `statements` start the run; `read` reads their results and answers why nothing was started,
   * if so (by default: the insert and the quota check of `startStatements`).
   */
  constructor(
    private readonly statements: D1PreparedStatement[],
    private readonly read: (results: D1Result[]) => Error | undefined = readPlainStart,
  ) {
    this.settled = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Whoever does not wait for it must not see an unhandled rejection.
    this.settled.catch(() => undefined);
  }

  get pending(): boolean {
    return !this.taken;
  }

  /** The start's statements, once: the first write of the run carries them. */
  take(): D1PreparedStatement[] {
    if (this.taken) return [];
    this.taken = true;
    return this.statements;
  }

  /** Reads the start's results in the batch that carried it; throws when nothing was started. */
  check(results: D1Result[]): void {
    const refusal = this.read(results);
    if (refusal) this.refuse(refusal);
    this.written = true;
    this.resolve();
  }

  /** The batch carrying the start failed: the start did not happen. */
  failed(error: unknown): void {
    this.reject(error);
  }

  private refuse(error: Error): never {
    this.reject(error);
    throw error;
  }
}

/**
 * The insert found no workflow to copy: it is gone, may not run now, or changed since this isolate
 * read it, or the start's own guard (a webhook's agent as read) no longer holds. No run was
 * written; the run starts again the usual way, which says which.
 */
export class StartRefused extends Error {
  constructor() {
    super("The workflow or what started the run changed before the run's start was written.");
  }
}

/** The account has its most unfinished runs: the insert was taken back out in the same batch. */
export class StartOverQuota extends Error {
  constructor() {
    super("The account is over its quota of unfinished runs.");
  }
}

/** The insert answers its row, the quota check the row it took back out. */
function readPlainStart([inserted, overQuota]: D1Result[]): Error | undefined {
  if (!inserted || inserted.results.length === 0) return new StartRefused();
  if (overQuota && overQuota.results.length > 0) return new StartOverQuota();
  return undefined;
}

/** The idempotency key was already another run's (a replay): the new row was taken back out. */
export class StartReplayed extends Error {
  constructor() {
    super("The idempotency key had started another run.");
  }
}
