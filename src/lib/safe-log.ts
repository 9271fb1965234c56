/**
 * Error text fit for logs: never query parameters. Database errors carry the statement's bound
 * parameters (inputs, emails, credentials) in their message, and URLs carry tokens in their
 * query strings (`?token=…`, signed links), so both are cut before anything is logged.
 */
export function loggableError(error: unknown): string {
  const queryError = error instanceof Error && "query" in error && "params" in error;
  if (queryError) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return `Database query failed: ${withoutQueryStrings(cause instanceof Error ? cause.message : String(cause ?? "unknown cause"))}`;
  }
  return withoutQueryStrings(error instanceof Error ? error.message : String(error));
}

/** Characters that end a URL written inside a log message (JSON quotes and escapes included). */
const URL_END = new Set([" ", "\t", "\n", "\r", '"', "'", "`", "<", ">", "\\"]);
/** Characters that end a URL's authority (`user:password@host:port`). */
const AUTHORITY_END = new Set(["/", "?", "#", ...URL_END]);

/**
 * Cuts the query string and fragment (either may hold a token) and the `user:password@` off
 * every URL in the text. One pass: each character is looked at a bounded number of times.
 */
export function withoutQueryStrings(text: string): string {
  let out = "";
  let copied = 0;
  for (let scheme = text.indexOf("://"); scheme >= 0; scheme = text.indexOf("://", Math.max(scheme + 3, copied))) {
    const hostStart = scheme + 3;
    let end = hostStart;
    let lastAt = -1;
    while (end < text.length && !AUTHORITY_END.has(text[end]!) && !text.startsWith("://", end)) {
      if (text[end] === "@") lastAt = end;
      end++;
    }
    out += text.slice(copied, hostStart);
    copied = lastAt >= 0 ? lastAt + 1 : hostStart;
    // The path runs to the query, the fragment, the URL's end, or another URL glued on.
    while (end < text.length && !URL_END.has(text[end]!) && text[end] !== "?" && text[end] !== "#" && !text.startsWith("://", end)) end++;
    out += text.slice(copied, end);
    copied = end;
    if (text[end] === "?" || text[end] === "#") {
      const marker = text[end] === "?" ? "?[query removed]" : "#[fragment removed]";
      while (end < text.length && !URL_END.has(text[end]!)) end++;
      out += marker;
      copied = end;
    }
  }
  return out + text.slice(copied);
}
