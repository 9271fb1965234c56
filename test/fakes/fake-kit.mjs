// What every platform's fake (test/fakes/platforms/<id>.mjs) builds its routes with. A route is
// [method, path pattern, respond(request, match)]; respond returns a plain body for a 200, or an
// Answer for any other status or for headers. The request is what the fake recorded:
// {method, path, query, headers, body (parsed JSON, else the raw text), raw, scenario}.

/** A canned answer other than 200 (a route returns a plain body for 200). */
export class Answer {
  constructor(status, body, headers = {}) {
    Object.assign(this, { status, body, headers });
  }
}

/** Items [start, start + size) of a list, and where the next page starts (null at the end). */
export function pageOf(items, start, size) {
  const from = Math.max(0, Number(start) || 0);
  const count = Math.max(1, Math.min(Number(size) || items.length, items.length || 1));
  const page = items.slice(from, from + count);
  return { page, next: from + count < items.length ? from + count : null };
}

export const b64 = (text) => Buffer.from(text).toString("base64");
export const unb64 = (text) => Buffer.from(String(text ?? ""), "base64").toString("utf8");

/** A form-encoded body (Stripe, Twilio, Mailgun) as {key: value}; a repeated key keeps its last value. */
export const formOf = (request) => Object.fromEntries(new URLSearchParams(request.raw ?? ""));

/** The user and password of a Basic Authorization header, or null. */
export function basicAuth(request) {
  const header = String(request.headers.authorization ?? "");
  if (!header.startsWith("Basic ")) return null;
  const decoded = unb64(header.slice(6));
  const at = decoded.indexOf(":");
  return at < 0 ? null : { user: decoded.slice(0, at), password: decoded.slice(at + 1) };
}

/**
 * A scenario's objects of one kind, kept across its requests (a created customer is then listed),
 * newest first as most APIs list them.
 */
export class Store {
  #byScenario = new Map();

  list(scenario) {
    return this.#byScenario.get(scenario) ?? [];
  }

  add(scenario, item) {
    this.#byScenario.set(scenario, [item, ...this.list(scenario)]);
    return item;
  }

  find(scenario, predicate) {
    return this.list(scenario).find(predicate);
  }
}
