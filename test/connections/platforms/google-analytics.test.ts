// Google Analytics 4's tools on a connection made with Google's OAuth (the fake provider), against
// the fake of the Data API v1beta: the analytics.readonly scope, runReport's body (dateRanges,
// dimensions, metrics, orderBys, limit/offset), rows read by their headers with numbers for metric
// values, paging by offset, and Google's refusals (an unknown metric, a property not shared, the quota).
import { describe, expect, it } from "vitest";
import { connectedWithOAuth, expectCall, jsonOf, onlyRequestOf, requestsOf, respondWith } from "./platform-test-kit";

describe("Google Analytics 4", () => {
  it("asks for analytics.readonly and runs a report: the request body, rows by header, numbers for metrics", async () => {
    const { authorize, execute, scenario } = await connectedWithOAuth("google_analytics");
    expect(authorize).toMatchObject({ scope: "https://www.googleapis.com/auth/analytics.readonly", access_type: "offline" });
    const out = await execute("google_analytics_run_report", {
      property_id: "123456789",
      start_date: "7daysAgo",
      end_date: "today",
      dimensions: ["country"],
      metrics: ["activeUsers", "totalRevenue"],
      order_by: "activeUsers",
      limit: 2,
    });
    expect(out, JSON.stringify(out)).toMatchObject({ success: true });
    expect(out.result).toEqual({
      rows: [
        { country: "United States", activeUsers: 120, totalRevenue: 1250.5 },
        { country: "Germany", activeUsers: 80, totalRevenue: 300 },
      ],
      row_count: 3,
      currency_code: "EUR",
      time_zone: "Europe/Berlin",
      next_cursor: expect.any(String),
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/v1beta/properties/123456789:runReport");
    expect(request.headers.authorization).toMatch(/^Bearer \S{10,}$/);
    expect(jsonOf(request)).toEqual({
      dateRanges: [{ startDate: "7daysAgo", endDate: "today" }],
      dimensions: [{ name: "country" }],
      metrics: [{ name: "activeUsers" }, { name: "totalRevenue" }],
      orderBys: [{ metric: { metricName: "activeUsers" }, desc: true }],
      limit: "2",
      offset: "0",
    });

    // The next page starts where the first ended, and is the last.
    const next = await execute("google_analytics_run_report", {
      property_id: "123456789",
      dimensions: ["country"],
      metrics: ["activeUsers", "totalRevenue"],
      limit: 2,
      cursor: out.result.next_cursor,
    });
    expect(next.result).toMatchObject({ rows: [{ country: "France", activeUsers: 40, totalRevenue: 0 }], next_cursor: null });
    expect(jsonOf((await requestsOf(scenario))[1]!)).toMatchObject({ dateRanges: [{ startDate: "28daysAgo", endDate: "yesterday" }], offset: "2" });
  });

  it("runs a realtime report and lists the property's dimensions and metrics", async () => {
    const { execute, scenario } = await connectedWithOAuth("google_analytics");
    const realtime = await execute("google_analytics_run_realtime_report", {
      property_id: "123456789",
      dimensions: ["country"],
      metrics: ["activeUsers"],
      limit: 1,
    });
    expect(realtime.result).toEqual({ rows: [{ country: "United States", activeUsers: 120 }], row_count: 3 });
    const metadata = await execute("google_analytics_get_metadata", { property_id: "123456789" });
    expect(metadata.result).toEqual({
      dimensions: [
        { api_name: "country", ui_name: "Country", category: "Geography", custom: false },
        { api_name: "customEvent:plan", ui_name: "Plan", category: "Custom", custom: true },
      ],
      metrics: [{ api_name: "activeUsers", ui_name: "Active users", category: "User", custom: false, type: "TYPE_INTEGER" }],
    });
    const [first, second] = await requestsOf(scenario);
    expectCall(first!, "POST", "/v1beta/properties/123456789:runRealtimeReport");
    expect(jsonOf(first!)).toEqual({ dimensions: [{ name: "country" }], metrics: [{ name: "activeUsers" }], limit: "1" });
    expectCall(second!, "GET", "/v1beta/properties/123456789/metadata");
  });

  it("reads Google's refusals: an unknown metric (400), a property not shared (403), the quota (429, retryable)", async () => {
    const { execute, scenario } = await connectedWithOAuth("google_analytics");
    const unknown = await execute("google_analytics_run_report", { property_id: "123456789", metrics: ["pageViews"] });
    expect(unknown).toMatchObject({ success: false, error_status: 400, retryable: false });
    expect(unknown.error_message).toContain("Google Analytics 4 answered 400: Field pageViews is not a valid metric.");
    const denied = await execute("google_analytics_run_report", { property_id: "999", metrics: ["activeUsers"] });
    expect(denied).toMatchObject({
      success: false,
      error_status: 403,
      retryable: false,
      error_message: "Google Analytics 4 answered 403: User does not have sufficient permissions for this property.",
    });
    await respondWith(scenario, 429, {
      error: { code: 429, message: "Exhausted property tokens per day for this property.", status: "RESOURCE_EXHAUSTED" },
    });
    const quota = await execute("google_analytics_run_report", { property_id: "123456789", metrics: ["activeUsers"] });
    expect(quota).toMatchObject({ success: false, error_status: 429, retryable: true });
  });
});
