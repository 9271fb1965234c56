/**
 * The insert of a run whose start is deferred (see deferred-start.ts): its statements go first in
 * the run's first write, with the quota check, instead of a write of their own before the run. A
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

  constructor(private readonly statements: [insert: D1PreparedStatement, overQuota: D1PreparedStatement]) {
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
  check([inserted, overQuota]: D1Result[]): void {
    if (!inserted || inserted.results.length === 0) this.refuse(new StartRefused());
    if (overQuota && overQuota.results.length > 0) this.refuse(new StartOverQuota());
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
 * read it. Nothing was written; the run starts again the usual way, which says which.
 */
export class StartRefused extends Error {
  constructor() {
    super("The workflow changed before the run's start was written.");
  }
}

/** The account has its most unfinished runs: the insert was taken back out in the same batch. */
export class StartOverQuota extends Error {
  constructor() {
    super("The account is over its quota of unfinished runs.");
  }
}
