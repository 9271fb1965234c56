// Form-encoded bodies (application/x-www-form-urlencoded) for the APIs that take no JSON: Stripe,
// Twilio, Mailgun. Nested values use the bracket convention these APIs share: `metadata[plan]=pro`,
// `line_items[0][price]=price_1`; undefined and null fields are left out. A body that is a
// URLSearchParams already is sent as it is.

/** Caps the fields one body may spread into, so a deep or wide argument cannot blow up a request. */
const MAX_FIELDS = 1000;
const MAX_DEPTH = 5;

export function formBody(values: unknown): URLSearchParams {
  // Built already, for a field an API wants repeated rather than indexed (Mailgun's o:tag).
  if (values instanceof URLSearchParams) return values;
  const form = new URLSearchParams();
  const add = (key: string, value: unknown, depth: number) => {
    if (value === undefined || value === null) return;
    if (depth > MAX_DEPTH || form.size >= MAX_FIELDS) throw new RangeError("This body is too deep or too wide to send as a form.");
    if (Array.isArray(value)) for (const [index, item] of value.entries()) add(`${key}[${index}]`, item, depth + 1);
    else if (typeof value === "object") for (const [name, item] of Object.entries(value)) add(key ? `${key}[${name}]` : name, item, depth + 1);
    else form.append(key, String(value));
  };
  add("", values, 0);
  return form;
}
