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

/** Cuts the query string (and user:password) off every URL in the text, in one pass over its words. */
export function withoutQueryStrings(text: string): string {
  return text
    .split(/(\s+)/)
    .map((word) => {
      const scheme = word.indexOf("://");
      if (scheme < 0) return word;
      let cleaned = word;
      const query = cleaned.indexOf("?", scheme);
      if (query >= 0) cleaned = `${cleaned.slice(0, query)}?[query removed]`;
      const at = cleaned.indexOf("@", scheme);
      const slash = cleaned.indexOf("/", scheme + 3);
      if (at >= 0 && (slash < 0 || at < slash)) cleaned = `${cleaned.slice(0, scheme + 3)}${cleaned.slice(at + 1)}`;
      return cleaned;
    })
    .join("");
}
