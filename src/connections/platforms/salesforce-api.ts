import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import type { PlatformFailure } from "./types";

// What Salesforce's REST API (developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/)
// shares across the tools: API names, record ids, field values, query locators and its error body.

/** The REST API version every path is under (…/services/data/v62.0, Winter '25). */
export const API_VERSION = "v62.0";

/**
 * An object's or a field's API name: Lead, Account, Invoice__c, ns__Score__c. Letters, digits and
 * underscores only, so it is one path segment and cannot change the meaning of a SOQL clause.
 */
export const ApiName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,79}$/, "An API name: letters, digits and underscores (custom ones end in __c).");

/** A record id, 15 (case-sensitive) or 18 characters. */
export const RecordId = z.string().regex(/^[A-Za-z0-9]{15}([A-Za-z0-9]{3})?$/, "A Salesforce record id (15 or 18 characters).");

const Scalar = z.union([z.string().max(131_072), z.number(), z.boolean(), z.null()]);
/** A lookup set through the parent's external ID: {"Account": {"External_Id__c": "A-1"}}. */
const ByExternalId = z.record(ApiName, z.union([z.string().max(255), z.number()])).refine((v) => Object.keys(v).length === 1, "One external ID field.");

/** Field values by API name, as the sObject resources take them. */
export const Fields = z
  .record(ApiName, z.union([Scalar, ByExternalId]))
  .refine((values) => Object.keys(values).length >= 1 && Object.keys(values).length <= 500, "Between 1 and 500 fields.")
  .describe('Field values by API name, e.g. {"Name": "Acme", "Industry": "Retail"}; a lookup by external ID as {"Account": {"External_Id__c": "A-1"}}.');

/** A query locator from nextRecordsUrl ("01gRO0000016PIAYA2-2000"): the id of the cursor and the offset. */
export const QueryLocator = z
  .string()
  .regex(/^[A-Za-z0-9]{15,18}-\d{1,10}$/, "Pass the next_cursor of the previous page as it was given.")
  .describe("The previous page's next_cursor.");

/**
 * The query locator of a page's nextRecordsUrl (/services/data/v62.0/query/01g…-2000), the only
 * part of it kept: the next page is then read from /query/{locator} under the connection's own
 * base URL, never from a URL the answer gives.
 */
export function locatorOf(nextRecordsUrl: unknown): string | null {
  if (typeof nextRecordsUrl !== "string" || nextRecordsUrl.length > 300) return null;
  const locator = /\/query(?:All)?\/([A-Za-z0-9]{15,18}-\d{1,10})$/.exec(nextRecordsUrl)?.[1];
  return locator ?? null;
}

/** A record as answered, without Salesforce's `attributes` ({type, url}), also on related records. */
export function fieldsOf(record: any): Record<string, unknown> {
  if (!record || typeof record !== "object") return {};
  const { attributes: _attributes, ...fields } = record;
  for (const [name, value] of Object.entries(fields))
    if (value && typeof value === "object" && !Array.isArray(value) && "attributes" in value) fields[name] = fieldsOf(value);
  return fields;
}

/** Error codes a later try can pass although their status says otherwise. */
const TRANSIENT = new Set([
  // 400: another transaction holds the record's lock (a trigger, a bulk job); it is released within seconds.
  "UNABLE_TO_LOCK_ROW",
]);

/**
 * Salesforce's error body, an array of {message, errorCode, fields?} (errorcodes.htm):
 * REQUIRED_FIELD_MISSING, INVALID_FIELD, MALFORMED_QUERY (400), NOT_FOUND (404),
 * INVALID_SESSION_ID (401: the token, refreshed once before the connection is blamed),
 * DUPLICATES_DETECTED (400, with the records a duplicate rule matched). An upsert whose external ID
 * matches several records answers 300 with their URLs, which is a failure too.
 */
export function readSalesforceError(status: number, body: any): PlatformFailure | undefined {
  if (status === 300) return multipleMatches(body);
  if (status < 400) return undefined;
  const errors: any[] = Array.isArray(body) ? body : body && typeof body === "object" && body.errorCode ? [body] : [];
  if (!errors.length || typeof errors[0] !== "object") return undefined;
  const code = text(errors[0]?.errorCode, 100);
  return {
    message: errors.slice(0, 5).map(describe).filter(Boolean).join("; "),
    code,
    authFailure: status === 401 ? "error" : null,
    retryable: (code && TRANSIENT.has(code)) || concurrentLimit(code, errors[0]?.message) ? true : undefined,
  };
}

/**
 * 403 REQUEST_LIMIT_EXCEEDED is two limits (errorcodes.htm): too many concurrent long requests
 * ("ConcurrentPerOrgLongTxn"), which passes in seconds, or the org's rolling 24-hour API
 * allocation ("TotalRequests Limit exceeded"), which a retry seconds later only spends: that one
 * stays permanent.
 */
function concurrentLimit(code: string | undefined, message: unknown): boolean {
  return code === "REQUEST_LIMIT_EXCEEDED" && typeof message === "string" && /concurrent/i.test(message.slice(0, 400));
}

function describe(error: any): string {
  // A SOQL error spans lines (the query, a caret under the column, the reason): one line here.
  const message = (text(error?.message, 400) ?? text(error?.errorCode, 100) ?? "").replace(/\s+/g, " ").trim();
  const fields: string[] = Array.isArray(error?.fields) ? error.fields.slice(0, 10).filter((f: unknown) => typeof f === "string") : [];
  const unnamed = fields.filter((field) => !message.includes(field));
  const matched = duplicateIds(error?.duplicateResult);
  return [
    `${error?.errorCode ? `${text(error.errorCode, 100)}: ` : ""}${message}`,
    unnamed.length ? ` (fields: ${unnamed.join(", ")})` : "",
    matched.length ? ` (matching records: ${matched.join(", ")})` : "",
  ].join("");
}

/** The ids of the records a duplicate rule matched (duplicateResult.matchResults[].matchRecords[].record.Id). */
function duplicateIds(result: any): string[] {
  const matches = Array.isArray(result?.matchResults) ? result.matchResults.slice(0, 5) : [];
  return matches
    .flatMap((m: any) => (Array.isArray(m?.matchRecords) ? m.matchRecords.slice(0, 5) : []))
    .map((r: any) => text(r?.record?.Id, 18))
    .filter(Boolean)
    .slice(0, 5);
}

function multipleMatches(body: any): PlatformFailure {
  const urls = Array.isArray(body) ? body.filter((u): u is string => typeof u === "string") : [];
  const ids = urls
    .slice(0, 5)
    .map((u) => text(u.slice(u.lastIndexOf("/") + 1), 18))
    .filter(Boolean);
  return {
    message: `The external ID matches ${urls.length || "several"} records${ids.length ? ` (${ids.join(", ")})` : ""}; update one of them by its id, or make the value unique.`,
    code: "MULTIPLE_CHOICES",
    retryable: false,
  };
}

/**
 * A datetime as SOQL takes it as a literal (YYYY-MM-DDThh:mm:ssZ), from the form the API answers
 * ("2026-04-22T09:00:00.000+0000"); undefined when it is not one.
 */
export function soqlDateTime(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.\d{1,3})?(Z|[+-]\d{2}:?\d{2})$/.exec(value);
  if (!m) return undefined;
  const offset = m[2] === "Z" ? "Z" : `${m[2]!.slice(0, 3)}:${m[2]!.slice(-2)}`;
  const at = new Date(`${m[1]}${offset}`);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString().replace(/\.\d{3}Z$/, "Z");
}
