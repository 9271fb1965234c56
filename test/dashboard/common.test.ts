import { describe, expect, it } from "vitest";
import { HubError } from "../../src/core/errors";
import { JsonBlock, MAX_SHOWN_JSON, countOf, formatDuration, formatTime, messageOf, parseJsonObject, positiveIdOf, statusOf } from "../../src/dashboard/common";
import { OverviewPage } from "../../src/dashboard/account/home";
import { WorkflowsListPage } from "../../src/dashboard/workflows/workflows-list";
import { EVENTS_SHOWN, EVENT_TEXT_SHOWN, collectEventLines } from "../../src/dashboard/tools/tools-stream";

const html = async (element: unknown) => String(await element);

describe("the dashboard's shared helpers", () => {
  it("shows a refusal with the REST API's status: a rate limit is 429, a conflict 409", () => {
    expect(statusOf(new HubError("rate_limited", "Slow down."))).toBe(429);
    expect(statusOf(new HubError("conflict", "Busy."))).toBe(409);
    expect(statusOf(new HubError("quota_exceeded", "Full."))).toBe(409);
    expect(statusOf(new HubError("not_found", "Gone."))).toBe(404);
    expect(statusOf(new HubError("validation_failed", "Bad."))).toBe(422);
    // A provider's failure has no page status of its own: the form comes back with 422.
    expect(statusOf(new HubError("provider_failed", "Down."))).toBe(422);
    const refusal = new HubError("validation_failed", "The request has invalid fields.", {
      errors: [{ location: "body", field: "name", message: "Too long." }],
    });
    expect(messageOf(refusal)).toBe("The request has invalid fields. Too long.");
  });

  it("reads positive whole-number ids only", () => {
    expect(positiveIdOf("42")).toBe(42);
    for (const text of [undefined, "", "0", "007", "-1", "1.5", "1e3", "12abc", "1234567890123456"]) expect(positiveIdOf(text)).toBeUndefined();
  });

  it("reads a JSON object field, refusing what the API would refuse", () => {
    expect(parseJsonObject("", "The input", "{}")).toEqual({ ok: true, value: {} });
    expect(parseJsonObject('{"a": 1}', "The input", "{}")).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonObject("[1]", "The input", '{"a": 1}')).toMatchObject({ ok: false, message: 'The input must be a JSON object, like {"a": 1}.' });
    expect(parseJsonObject("{nope", "The input", "{}")).toMatchObject({ ok: false, reason: "syntax" });
    const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
    expect(parseJsonObject(deep(127), "The input", "{}").ok).toBe(true);
    expect(parseJsonObject(deep(128), "The input", "{}")).toMatchObject({ ok: false, message: "The value is nested deeper than 127 levels." });
  });

  it("formats times in UTC to the second and durations at a glance", () => {
    expect(formatTime("2025-05-01T09:30:12.345Z")).toBe("2025-05-01 09:30:12 UTC");
    expect(formatTime(new Date("2025-05-01T09:30:12Z"))).toBe("2025-05-01 09:30:12 UTC");
    expect(formatTime(null)).toBe("—");
    expect(formatDuration(350)).toBe("350 ms");
    expect(formatDuration(4200)).toBe("4.2 s");
    expect(formatDuration(185_000)).toBe("3 min 5 s");
    expect(formatDuration(null, "not finished")).toBe("not finished");
  });

  it("shows JSON in a focusable scrolling box, cut past 20 KB", async () => {
    const small = await html(JsonBlock({ value: { a: 1 } }));
    expect(small).toContain('<div class="scroll"><pre tabindex="0">{\n  &quot;a&quot;: 1\n}</pre></div>');
    const big = await html(JsonBlock({ value: "x".repeat(MAX_SHOWN_JSON * 2) }));
    expect(big).toContain("…truncated, see the API for the whole value");
    expect(big.length).toBeLessThan(MAX_SHOWN_JSON + 500);
    // Stored text that is not JSON is shown as it is.
    expect(await html(JsonBlock({ text: "Error: boom", label: "Result" }))).toContain(
      '<p class="meta">Result</p><div class="scroll"><pre tabindex="0">Error: boom</pre>',
    );
  });

  it("says 100+ when a capped count reached its cap", async () => {
    expect(countOf(100, 100)).toBe("100");
    expect(countOf(101, 100)).toBe("100+");
    const page = await html(OverviewPage({ email: "a@example.com", csrf: "t", cap: 100, counts: { connections: 3, workflows: 101, agents: 0, keys: 1 } }));
    expect(page).toContain("100+ workflows");
    expect(page).toContain("3 connections");
    expect(page).toContain("1 active key.");
    const row = { id: 1, name: "One", status: "active", steps: 1, updatedAt: new Date() };
    const draft = { name: "", description: "", steps: "" };
    const list = await html(WorkflowsListPage({ email: "a@example.com", csrf: "t", workflows: [row], more: true, draft }));
    expect(list).toContain("Showing the newest 1 of 1+ workflows; <code>GET /v1/workflows</code> pages through them all.");
    expect(await html(WorkflowsListPage({ email: "a@example.com", csrf: "t", workflows: [row], draft }))).not.toContain("Showing the newest");
  });

  it("keeps the first 200 events of a plain tool run, each cut to 500 characters, and counts the rest", () => {
    const events = collectEventLines();
    events.add({ event: "log", data: { level: "info", message: "y".repeat(2000) } });
    for (let i = 0; i < EVENTS_SHOWN + 49; i++) events.add({ event: "progress", data: { progress: i } });
    expect(events.lines.lines).toHaveLength(EVENTS_SHOWN);
    expect(events.lines.more).toBe(50);
    expect(events.lines.lines[0]).toHaveLength(EVENT_TEXT_SHOWN + 1);
    expect(events.lines.lines[0]!.endsWith("…")).toBe(true);
    expect(events.lines.lines[1]).toBe("Progress 0");
  });
});
