// The Google Analytics Data API v1beta (developers.google.com/analytics/devguides/reporting/data/v1/rest):
// runReport and runRealtimeReport answer RunReportResponse (dimensionHeaders, metricHeaders with
// their types, rows of string values, rowCount, metadata), paged by limit and offset; metadata
// lists apiName/uiName/category. Refusals are Google's {error: {code, message, status}}: an unknown
// metric is 400 INVALID_ARGUMENT, property 999 is one the account cannot read (403 PERMISSION_DENIED).
import { Answer, pageOf } from "../fake-kit.mjs";

const DIMENSION_VALUES = {
  country: ["United States", "Germany", "France"],
  date: ["20260422", "20260421", "20260420"],
  sessionSource: ["google", "(direct)", "newsletter"],
};
const METRIC_TYPES = { activeUsers: "TYPE_INTEGER", sessions: "TYPE_INTEGER", engagementRate: "TYPE_FLOAT", totalRevenue: "TYPE_CURRENCY" };
const METRIC_VALUES = {
  activeUsers: ["120", "80", "40"],
  sessions: ["150", "95", "41"],
  engagementRate: ["0.61", "0.55", "0.48"],
  totalRevenue: ["1250.5", "300", "0"],
};

const error = (code, status, message) => new Answer(code, { error: { code, message, status } });

function refusal(req, names) {
  if (!String(req.headers.authorization ?? "").startsWith("Bearer "))
    return error(401, "UNAUTHENTICATED", "Request is missing required authentication credential.");
  if (req.path.includes("/properties/999")) return error(403, "PERMISSION_DENIED", "User does not have sufficient permissions for this property.");
  const unknown = names.find((name) => !(name in METRIC_TYPES));
  if (unknown)
    return error(
      400,
      "INVALID_ARGUMENT",
      `Field ${unknown} is not a valid metric. For a list of valid dimensions and metrics, see https://developers.google.com/analytics/devguides/reporting/data/v1/api-schema `,
    );
  return undefined;
}

function report(req, kind) {
  const body = req.body ?? {};
  const metrics = (body.metrics ?? []).map((m) => m.name);
  const dimensions = (body.dimensions ?? []).map((d) => d.name);
  const refused = refusal(req, metrics);
  if (refused) return refused;
  const all = [0, 1, 2].map((i) => ({
    dimensionValues: dimensions.map((name) => ({ value: DIMENSION_VALUES[name]?.[i] ?? `${name}-${i}` })),
    metricValues: metrics.map((name) => ({ value: METRIC_VALUES[name][i] })),
  }));
  const { page } = pageOf(all, body.offset, body.limit);
  return {
    dimensionHeaders: dimensions.map((name) => ({ name })),
    metricHeaders: metrics.map((name) => ({ name, type: METRIC_TYPES[name] })),
    ...(page.length ? { rows: page } : {}),
    rowCount: all.length,
    metadata: kind === "analyticsData#runReport" ? { currencyCode: "EUR", timeZone: "Europe/Berlin" } : {},
    kind,
  };
}

const METADATA = {
  name: "properties/123456789/metadata",
  dimensions: [
    { apiName: "country", uiName: "Country", description: "The country from which the user activity originated.", category: "Geography" },
    { apiName: "customEvent:plan", uiName: "Plan", description: "An event-scoped custom dimension.", customDefinition: true, category: "Custom" },
  ],
  metrics: [
    { apiName: "activeUsers", uiName: "Active users", description: "The number of distinct users who visited.", type: "TYPE_INTEGER", category: "User" },
  ],
};

export const googleAnalyticsRoutes = [
  ["POST", /^\/v1beta\/properties\/(\d+):runReport$/, (req) => report(req, "analyticsData#runReport")],
  ["POST", /^\/v1beta\/properties\/(\d+):runRealtimeReport$/, (req) => report(req, "analyticsData#runRealtimeReport")],
  ["GET", /^\/v1beta\/properties\/(\d+)\/metadata$/, (req) => refusal(req, []) ?? METADATA],
];
