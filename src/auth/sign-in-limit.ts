import type { Runtime } from "../core/context";
import { HubError } from "../core/errors";
import { consumeReturnable, exhaustedOf, rateLimitHeaders } from "../http/rate-limit";
import type { CounterSpec, RateLimitResult } from "../http/rate-limiter";
import { base64url, sha256 } from "../lib/crypto";
import { loggableError } from "../lib/safe-log";

/**
 * Failed sign-ins per account, whatever the address they come from: the per-address limit alone
 * lets someone with many addresses guess one account's password without end. Kept in the
 * account's own RateLimiter object, named by a hash of the email so that no address appears in
 * object names or logs. The window is the limiter's (one minute), so the owner is never kept
 * out longer than that.
 */
const COUNTER = "account_sign_in_failures";

/**
 * Runs one password check for `email` (already normalised) within the account's limit:
 * refused with 429 before the check when the account's failures are used up (so a limited
 * caller learns nothing about the password). Every check takes a hit first and a success gives
 * it back: reading the count and charging only after a failure let a burst of concurrent
 * guesses all pass the read. Unknown emails are counted like wrong passwords, so the limit does
 * not tell which emails have an account; a success costs nothing.
 */
export async function withinSignInLimit<T>(
  runtime: Pick<Runtime, "config" | "bindings">,
  email: string,
  attempt: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const limiter = runtime.bindings.RATE_LIMITER;
  const subject = await subjectOf(email);
  const counters: CounterSpec[] = [{ name: COUNTER, limit: runtime.config.limits.accountAuthFailuresPerMinute }];
  const hit = await consumeReturnable(limiter, subject, counters);
  if (exhaustedOf(hit.results)) throw tooManyFailures(hit.results);
  // A check that throws keeps its hit, like a failure: only a success is given back.
  const result = await attempt();
  if (result !== undefined) {
    // The sign-in stands even if the hit cannot be given back: it only counts against the account.
    await hit.giveBack().catch((error) => console.warn(JSON.stringify({ level: "warn", message: "sign-in hit not given back", error: loggableError(error) })));
  }
  return result;
}

const subjectOf = async (email: string) => `account:${base64url(await sha256(email))}`;

function tooManyFailures(results: RateLimitResult[]): HubError {
  const hit = exhaustedOf(results)!;
  const headers = rateLimitHeaders(results);
  return new HubError("rate_limited", `Too many failed sign-ins for this account. Try again in ${hit.resetSeconds} s.`, {
    retryAfterSeconds: hit.resetSeconds,
    rateLimit: { policy: headers["RateLimit-Policy"]!, state: headers.RateLimit! },
  });
}
