// Typeform's tools against the fake of its APIs: the token as a Bearer, responses newest first
// paged with before=<token>, answers by field ref (or id), and Typeform's {code, description}.
import { describe, expect, it } from "vitest";
import { connected, expectCall, failed, ok, requestsOf, respondWith } from "./platform-test-kit";

const setup = () => connected("typeform", (hub) => ({ access_token: hub.secret("tfp_") }));

describe("Typeform", () => {
  it("lists completed responses newest first with answers by ref, paging with before=<token>", async () => {
    const { hub, scenario, settings } = await setup();
    const first = await ok(hub, "typeform_list_responses", { form_id: "lT4Z3j", limit: 2 });
    expect(first).toEqual({
      responses: [
        {
          id: "tok3",
          submitted_at: "2026-11-23T09:00:00Z",
          landed_at: "2026-11-23T08:59:00Z",
          answers: { email: "lead3@example.com", plan: "Pro", f3: 9 },
          hidden: { utm_source: "newsletter" },
        },
        expect.objectContaining({ id: "tok2", answers: { email: "lead2@example.com", plan: "Free", f3: 8 } }),
      ],
      total: 3,
      next_cursor: "tok2",
    });
    const second = await ok(hub, "typeform_list_responses", { form_id: "lT4Z3j", limit: 2, cursor: "tok2" });
    expect(second).toMatchObject({ responses: [{ id: "tok1" }], next_cursor: null });
    const [request, next] = await requestsOf(scenario);
    expectCall(request!, "GET", "/forms/lT4Z3j/responses", { page_size: "2", completed: "true" });
    expect(request!.headers.authorization).toBe(`Bearer ${settings.access_token}`);
    expectCall(next!, "GET", "/forms/lT4Z3j/responses", { page_size: "2", before: "tok2", completed: "true" });
  });

  it("lists forms and reads one's fields; an unknown form is Typeform's 404 FORM_NOT_FOUND", async () => {
    const { hub, scenario } = await setup();
    const demo = { id: "lT4Z3j", title: "Demo request", last_updated_at: "2026-11-01T09:00:00Z", url: "https://acme.typeform.com/to/lT4Z3j" };
    expect(await ok(hub, "typeform_list_forms", { search: "demo" })).toEqual({ forms: [demo], next_cursor: null });
    const first = await ok(hub, "typeform_list_forms", { page_size: 1 });
    expect(first).toEqual({ forms: [demo], next_cursor: expect.any(String) });
    expect(await ok(hub, "typeform_list_forms", { page_size: 1, cursor: first.next_cursor })).toEqual({
      forms: [{ id: "nPs0Q1", title: "NPS survey", last_updated_at: "2026-10-12T08:00:00Z", url: "https://acme.typeform.com/to/nPs0Q1" }],
      next_cursor: null,
    });
    expect(await ok(hub, "typeform_get_form", { form_id: "lT4Z3j" })).toEqual({
      id: "lT4Z3j",
      title: "Demo request",
      fields: [
        { id: "f1", ref: "email", type: "email", title: "Your work email?" },
        { id: "f2", ref: "plan", type: "multiple_choice", title: "Which plan?" },
      ],
    });
    const [searched, page1, page2] = await requestsOf(scenario);
    expectCall(searched!, "GET", "/forms", { search: "demo", page: "1", page_size: "50" });
    expectCall(page1!, "GET", "/forms", { page: "1", page_size: "1" });
    expectCall(page2!, "GET", "/forms", { page: "2", page_size: "1" });
    const missing = await failed(hub, "typeform_get_form", { form_id: "lTnope" });
    expect(missing).toMatchObject({ error_status: 404, retryable: false, error_message: "Typeform answered 404: Non existing form with uid lTnope" });
  });

  it("a refused token is Typeform's 401 AUTHENTICATION_FAILED and marks the connection", async () => {
    const { hub, scenario, connection } = await setup();
    await respondWith(scenario, 401, { code: "AUTHENTICATION_FAILED", description: "Authentication credentials not found on the Request Headers" });
    expect(await failed(hub, "typeform_list_forms", {})).toMatchObject({ error_status: 401 });
    expect(await hub.connection(connection.connection_id)).toMatchObject({ status: "error" });
  });
});
