import { HubError } from "../../core/errors";
import type { Env } from "../../env";
import { loggableError } from "../../lib/safe-log";
import { QUIET_MS } from "./connection-governor";
import { hasLimitFacts, isLimited, readLimitSignal } from "./headers";

/** What `platformClient` asks before each request and tells after it. */
export interface Governor {
  /** Returns when the call may go; throws HubError `rate_limited` (with retryAfterSeconds) when that is too far off. */
  acquire(): Promise<void>;
  /** Learns from the answer's status and rate-limit fields. Never throws. */
  report(status: number, headers: Headers): Promise<void> | void;
}

/** How long one call waits for its slot in-process; beyond it, the caller is refused with the time to come back. */
export const MAX_WAIT_MS = 30_000;
/** Connections this isolate remembers as governed; the oldest is forgotten beyond it. */
const MAX_GOVERNED = 10_000;

/**
 * Connections whose calls this isolate sends through their governor, each until when. A
 * connection is not here until one of its answers here is a 429 or 503 or shows less than 20 %
 * of its limit left: until then its calls cost no round trip at all (the happy path). Each answer
 * of the governor says how long to keep asking it (a minute after the last sign of a limit).
 */
const governed = new Map<string, number>();

function governing(key: string, now = Date.now()): boolean {
  const until = governed.get(key);
  if (until === undefined) return false;
  if (until > now) return true;
  governed.delete(key);
  return false;
}

function govern(key: string, until: number): void {
  if (until <= Date.now()) return;
  governed.delete(key);
  if (governed.size >= MAX_GOVERNED) {
    const oldest = governed.keys().next().value;
    if (oldest !== undefined) governed.delete(oldest);
  }
  governed.set(key, Math.max(until, governed.get(key) ?? 0));
}

/** The governor's name for a saved connection: its uid, so a connection made after another was deleted starts afresh. */
export const connectionGovernorName = (connection: { uid: string }) => `connection:${connection.uid}`;

const UNGOVERNED: Governor = { acquire: async () => undefined, report: () => undefined };

/**
 * The governor of the connection named `name` (see connectionGovernorName), for one client.
 * `bindings` are the runtime's; without the CONNECTION_GOVERNORS binding calls go ungoverned.
 * A governor that cannot be reached never stops a call: it is logged and the call goes.
 */
export function governorFor(
  bindings: object,
  name: string,
  platform: { id: string; name: string },
  options: { signal?: AbortSignal; maxWaitMs?: number } = {},
): Governor {
  const namespace = (bindings as Partial<Pick<Env, "CONNECTION_GOVERNORS">>).CONNECTION_GOVERNORS;
  if (!namespace) return UNGOVERNED;
  const maxWaitMs = options.maxWaitMs ?? MAX_WAIT_MS;
  const stub = () => namespace.get(namespace.idFromName(name));
  return {
    async acquire() {
      if (!governing(name)) return;
      let answer: Awaited<ReturnType<ReturnType<typeof stub>["acquire"]>>;
      try {
        answer = await stub().acquire(platform.id, maxWaitMs);
      } catch (error) {
        unreachable(name, error);
        return;
      }
      govern(name, answer.governUntil);
      if (!answer.granted) {
        const seconds = Math.max(1, Math.ceil(answer.waitMs / 1000));
        throw new HubError("rate_limited", `${platform.name} is limiting this connection's calls; the next one can go in about ${seconds} s.`, {
          retryAfterSeconds: seconds,
        });
      }
      if (answer.waitMs > 0) await scheduler.wait(answer.waitMs, options.signal ? { signal: options.signal } : undefined);
    },
    async report(status, headers) {
      const now = Date.now();
      const signal = readLimitSignal(status, headers, now);
      const paced = governing(name, now);
      const limited = isLimited(signal);
      if (!paced && !limited) return;
      // Governed from now on in this isolate, before the governor answers: the calls after this one ask it.
      if (limited) govern(name, now + QUIET_MS);
      // A governed call's plain success still eases an adapted pace; anything with facts teaches.
      if (!limited && !hasLimitFacts(signal) && status >= 400) return;
      try {
        const answer = await stub().report(platform.id, { ...signal, paced });
        govern(name, answer.governUntil);
      } catch (error) {
        unreachable(name, error);
      }
    },
  };
}

function unreachable(name: string, error: unknown): void {
  console.error(
    JSON.stringify({ level: "error", message: "the connection's rate governor could not be reached", governor: name, error: loggableError(error) }),
  );
}
