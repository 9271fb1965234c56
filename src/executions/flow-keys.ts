import { base64url, sha256 } from "../lib/crypto";
import { stringify, substitute } from "../lib/template";

/** A key's value is hashed, so what is stored is short whatever the input holds; this bounds the work. */
const MAX_KEY_CHARS = 10_000;

/**
 * The hash a flow-control key (settings.debounce.key, settings.concurrency_key: a placeholder over
 * the input, such as `{{input.customer}}`) comes to for this input. A placeholder with no value is
 * left as written, so the starts that lack it share one key.
 */
export async function keyHashOf(template: string, input: Record<string, unknown>): Promise<string> {
  let value: string;
  try {
    value = stringify(substitute(template, { input }, { maxChars: MAX_KEY_CHARS }).value);
  } catch {
    // A key that cannot be built (too large) is one key of its own, not a failed start.
    value = "\u0000unbuildable";
  }
  return base64url(await sha256(value));
}
