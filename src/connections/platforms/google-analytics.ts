import { z } from "@hono/zod-openapi";
import { OffsetCursor, nextOffsetCursor, offsetOf } from "./cursor";
import { googleOAuth, readGoogleError } from "./google-api";
import { oauthConfigFields } from "./oauth-spec";
import { requestTool } from "./request-tool";
import { baseUrlField, definePlatform } from "./types";

type AnalyticsConfig = { base_url?: string /** Set for each call from the connection's OAuth tokens. */; access_token?: string };

// The Google Analytics Data API v1beta (developers.google.com/analytics/devguides/reporting/data/v1):
// reports on a GA4 property, read with the analytics.readonly scope through the deployment's Google app.

const PropertyId = z.string().regex(/^\d{1,20}$/, "The GA4 property's numeric id (Admin → Property details), not a G- measurement id.");
/** API names as in the schema (activeUsers, sessionSource, customEvent:plan). */
const FieldName = z.string().regex(/^[A-Za-z][A-Za-z0-9_:]{0,99}$/, "An API name such as activeUsers or country.");
const Dimensions = z.array(FieldName).max(9).default([]).describe("Up to 9 dimensions, e.g. date, country, sessionSource.");
const Metrics = z.array(FieldName).min(1).max(10).describe("1 to 10 metrics, e.g. activeUsers, sessions, totalRevenue.");
/** YYYY-MM-DD, or NdaysAgo, yesterday, today (DateRange in the reference). */
const DateValue = z.string().regex(/^(\d{4}-\d{2}-\d{2}|\d{1,4}daysAgo|yesterday|today)$/, "YYYY-MM-DD, NdaysAgo, yesterday or today.");

type Report = {
  dimensionHeaders?: { name: string }[];
  metricHeaders?: { name: string; type?: string }[];
  rows?: { dimensionValues?: { value?: string }[]; metricValues?: { value?: string }[] }[];
  rowCount?: number;
  metadata?: { currencyCode?: string; timeZone?: string };
};

/** The report's rows as {dimension: value, metric: number}: metric values come as strings of numbers. */
function rowsOf(report: Report) {
  const dimensions = (report.dimensionHeaders ?? []).map((h) => h.name);
  const metrics = (report.metricHeaders ?? []).map((h) => h.name);
  return (report.rows ?? []).map((row) => ({
    ...Object.fromEntries(dimensions.map((name, i) => [name, row.dimensionValues?.[i]?.value ?? null])),
    ...Object.fromEntries(metrics.map((name, i) => [name, numberOrNull(row.metricValues?.[i]?.value)])),
  }));
}

function numberOrNull(value: string | undefined): number | null {
  const n = Number(value);
  return value === undefined || value === "" || !Number.isFinite(n) ? null : n;
}

export const googleAnalytics = definePlatform<AnalyticsConfig>({
  id: "google_analytics",
  name: "Google Analytics 4",
  description:
    "Reports on a Google Analytics 4 property (users, sessions, conversions, revenue by date, source, page…), and who is on the site now (Connect with Google).",
  category: "analytics",
  authKind: "oauth2",
  config: z.object({ base_url: baseUrlField, ...oauthConfigFields }),
  secretFields: ["client_secret"],
  oauth: googleOAuth(["https://www.googleapis.com/auth/analytics.readonly"]),
  defaultBaseUrl: "https://analyticsdata.googleapis.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  // {error: {code, message, status}}: INVALID_ARGUMENT (400) for an unknown metric, PERMISSION_DENIED
  // (403) for a property the account cannot read, RESOURCE_EXHAUSTED (429) for the property's token quota.
  readError: readGoogleError,
  tools: [
    requestTool({
      action: "run_report",
      effect: "read",
      title: "Run a Google Analytics report",
      description:
        "Runs a report on a GA4 property (POST /v1beta/properties/{property_id}:runReport): metrics by dimensions over a date range, sorted by a metric or dimension if asked. Rows come as {dimension: value, metric: number}; row_count is the report's total and next_cursor pages through it.",
      input: z.object({
        property_id: PropertyId,
        start_date: DateValue.default("28daysAgo"),
        end_date: DateValue.default("yesterday"),
        dimensions: Dimensions,
        metrics: Metrics,
        order_by: FieldName.optional().describe("A metric or dimension of the report to sort by."),
        descending: z.boolean().default(true),
        limit: z.number().int().min(1).max(10_000).default(100),
        cursor: OffsetCursor.optional(),
      }),
      method: "POST",
      path: "/v1beta/properties/{property_id}:runReport",
      body: (args) => ({
        dateRanges: [{ startDate: args.start_date, endDate: args.end_date }],
        dimensions: args.dimensions.map((name) => ({ name })),
        metrics: args.metrics.map((name) => ({ name })),
        ...(args.order_by
          ? {
              orderBys: [
                args.metrics.includes(args.order_by)
                  ? { metric: { metricName: args.order_by }, desc: args.descending }
                  : { dimension: { dimensionName: args.order_by }, desc: args.descending },
              ],
            }
          : {}),
        limit: String(args.limit),
        offset: String(offsetOf(args.cursor)),
      }),
      result: (report: Report, args) => {
        const rows = rowsOf(report);
        return {
          rows,
          row_count: report.rowCount ?? 0,
          currency_code: report.metadata?.currencyCode ?? null,
          time_zone: report.metadata?.timeZone ?? null,
          next_cursor: nextOffsetCursor(offsetOf(args.cursor), rows.length, args.limit, report.rowCount ?? 0),
        };
      },
    }),
    requestTool({
      action: "run_realtime_report",
      effect: "read",
      title: "Run a Google Analytics realtime report",
      description:
        "Who is on the site or app in the last 30 minutes (POST /v1beta/properties/{property_id}:runRealtimeReport), e.g. activeUsers by country or unifiedScreenName.",
      input: z.object({
        property_id: PropertyId,
        dimensions: Dimensions,
        metrics: Metrics,
        limit: z.number().int().min(1).max(10_000).default(100),
      }),
      method: "POST",
      path: "/v1beta/properties/{property_id}:runRealtimeReport",
      body: (args) => ({ dimensions: args.dimensions.map((name) => ({ name })), metrics: args.metrics.map((name) => ({ name })), limit: String(args.limit) }),
      result: (report: Report) => ({ rows: rowsOf(report), row_count: report.rowCount ?? 0 }),
    }),
    requestTool({
      action: "get_metadata",
      effect: "read",
      title: "List a Google Analytics property's dimensions and metrics",
      description:
        "The dimensions and metrics a property's reports can use, custom ones included (GET /v1beta/properties/{property_id}/metadata): the api_name is what run_report takes.",
      input: z.object({ property_id: PropertyId }),
      method: "GET",
      path: "/v1beta/properties/{property_id}/metadata",
      result: (a) => {
        const field = (f: any) => ({ api_name: f.apiName, ui_name: f.uiName ?? null, category: f.category ?? null, custom: f.customDefinition ?? false });
        return { dimensions: (a.dimensions ?? []).map(field), metrics: (a.metrics ?? []).map((m: any) => ({ ...field(m), type: m.type ?? null })) };
      },
    }),
  ],
});
