// A model's call that a policy rule sends to a person (DESIGN §6.2): the turn waits with the
// answer `awaiting_approval`, the other calls of the answer run, and once decided (approved with
// the final arguments, denied with a note, or expired) the turn goes on by itself.
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { connectModel, modelRequests, newConversation, newScenario, openai, script } from "../conversations/helpers";
import { requestsOf, scenarioUrl } from "../tools/platform-helpers";
import { readSse } from "../conversations/sse";

async function person() {
  const { key } = await newApiKey(await newUser());
  const scenario = newScenario("appr");
  await connectModel(key, scenario);
  return { key, scenario };
}

async function connectCalendly(key: string) {
  const calendly = newScenario("cal");
  const response = await call("/v1/connections", {
    token: key,
    json: { platform: "calendly", name: "Calendly", config: { access_token: `cal-${crypto.randomUUID()}`, base_url: `${scenarioUrl(calendly)}/calendly` } },
  });
  expect(response.status).toBe(201);
  return calendly;
}

const send = (key: string, conversation: number, content: string) =>
  call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content, provider: "openai" } });

/** The conversation once its turn has gone on and finished (the continuation runs in its object). */
async function settled(key: string, conversation: number) {
  for (let i = 0; i < 200; i++) {
    const detail = await json(await call(`/v1/conversations/${conversation}`, { token: key }));
    if (detail.status === "idle") return detail;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the turn did not go on");
}

const decide = (key: string, id: string, body: Record<string, unknown>) => call(`/v1/approvals/${id}/decision`, { token: key, json: body });

describe("approvals in a chat turn", () => {
  it("asks before a destructive call by default, runs the rest of the answer, and goes on by itself once approved", async () => {
    const { key, scenario } = await person();
    const calendly = await connectCalendly(key);
    await script(scenario, [
      openai.toolCalls([
        { id: "call_cancel", name: "calendly_cancel_event", args: { event_uuid: "EV2000000000000", reason: "Host is ill" } },
        { id: "call_math", name: "math_evaluate", args: { expression: "2 + 2" } },
      ]),
      openai.text("Cancelled the booking; 2 + 2 is 4."),
    ]);
    const conversation = await newConversation(key);

    const response = await send(key, conversation, "Cancel tomorrow's booking and add 2 and 2");
    expect(response.status).toBe(201);
    const waiting = await json(response);
    expect(waiting).toMatchObject({ role: "assistant", status: "awaiting_approval", pending_approvals: [expect.stringMatching(/^apr_/)] });
    expect(waiting.tools_called.map((c: any) => [c.id, c.success, c.approval_id ?? null])).toEqual([
      ["call_cancel", false, waiting.pending_approvals[0]],
      ["call_math", true, null],
    ]);
    // Nothing reached Calendly; the model was asked once.
    expect(await requestsOf(calendly)).toEqual([]);
    expect(await modelRequests(scenario)).toHaveLength(1);

    const detail = await json(await call(`/v1/conversations/${conversation}`, { token: key }));
    expect(detail).toMatchObject({ status: "awaiting_approval", state: "awaiting_approval" });
    // A new message would land in the middle of the waiting turn.
    await expectProblem(await send(key, conversation, "Anything else?"), 409, "conflict");

    const id = waiting.pending_approvals[0];
    const listed = await json(await call("/v1/approvals?status=pending", { token: key }));
    expect(listed.data).toEqual([
      expect.objectContaining({
        id,
        status: "pending",
        tool: "calendly_cancel_event",
        arguments: { event_uuid: "EV2000000000000", reason: "Host is ill" },
        effect: "destructive",
        rule: { effect: "destructive", action: "ask", source: "default", index: 0 },
        conversation_id: conversation,
        message_id: waiting.id,
        decided_at: null,
        decided_by: null,
      }),
    ]);

    const approved = await decide(key, id, { decision: "approve" });
    expect(approved.status).toBe(200);
    expect(await json(approved)).toMatchObject({ id, status: "approved", decided_by: expect.stringMatching(/^user:\d+$/) });
    const after = await settled(key, conversation);
    expect(after.messages.at(-1)).toMatchObject({ role: "assistant", status: "completed", content: "Cancelled the booking; 2 + 2 is 4." });
    // The waiting answer is completed and records how its held call ended.
    const answered = after.messages.find((m: any) => m.id === waiting.id);
    expect(answered).toMatchObject({ status: "completed" });
    expect(answered.pending_approvals).toBeUndefined();
    expect(answered.tools_called[0]).toMatchObject({ id: "call_cancel", success: true, approval_id: id });

    const calls = await requestsOf(calendly);
    expect(calls.map((r) => [r.method, r.path])).toEqual([["POST", "/calendly/scheduled_events/EV2000000000000/cancellation"]]);
    // The model heard both results, in its order, after its own call.
    const second = (await modelRequests(scenario))[1].body.messages;
    const tools = second.filter((m: any) => m.role === "tool");
    expect(tools.map((m: any) => m.tool_call_id)).toEqual(["call_cancel", "call_math"]);
    expect(tools[0].content).toContain("canceled");

    await expectProblem(await decide(key, id, { decision: "deny" }), 409, "conflict");
    // The event log tells the request and the decision, in order, around the turn's two ends.
    const events = await readSse(await call(`/v1/conversations/${conversation}/stream?last_event_id=0`, { token: key }), (seen) =>
      seen.some((e) => e.event === "ready"),
    );
    const told = events.filter((e) => ["approval_requested", "approval_decided", "turn_finished"].includes(e.event));
    expect(told.map((e) => [e.event, e.data.approval?.status ?? e.data.status])).toEqual([
      ["approval_requested", "pending"],
      ["turn_finished", "awaiting_approval"],
      ["approval_decided", "approved"],
      ["turn_finished", "completed"],
    ]);
    // The conversation takes new messages again.
    await script(scenario, [openai.text("Nothing else.")]);
    expect((await send(key, conversation, "Anything else?")).status).toBe(201);
  });

  it("runs an approved call with edited arguments checked against the tool's schema, and tells the model a denial's note", async () => {
    const { key, scenario } = await person();
    const rules = await call("/v1/me/tool-policies", {
      token: key,
      method: "PUT",
      json: { rules: [{ tool: "math_*", when: { field: "args.expression", operator: "contains", value: "*" }, action: "ask" }] },
    });
    expect(rules.status).toBe(200);
    await script(scenario, [
      openai.toolCalls([
        { id: "call_a", name: "math_evaluate", args: { expression: "6 * 7" } },
        { id: "call_b", name: "math_evaluate", args: { expression: "10 * 10" } },
        { id: "call_c", name: "math_evaluate", args: { expression: "1 + 1" } },
      ]),
      openai.text("Done."),
    ]);
    const conversation = await newConversation(key);
    const waiting = await json(await send(key, conversation, "Work these out"));
    expect(waiting.status).toBe("awaiting_approval");
    const [first, second] = waiting.pending_approvals;
    expect(waiting.pending_approvals).toHaveLength(2);

    // Arguments the tool's schema refuses are not stored; the approval stays pending.
    await expectProblem(await decide(key, first, { decision: "approve", arguments: { expression: 42 } }), 422, "validation_failed");
    expect(await json(await call(`/v1/approvals/${first}`, { token: key }))).toMatchObject({ status: "pending", arguments: { expression: "6 * 7" } });
    expect((await decide(key, first, { decision: "approve", arguments: { expression: "6 * 8" } })).status).toBe(200);
    // One of two decided: the turn still waits.
    expect((await json(await call(`/v1/conversations/${conversation}`, { token: key }))).status).toBe("awaiting_approval");
    expect((await decide(key, second, { decision: "deny", note: "too big" })).status).toBe(200);

    await settled(key, conversation);
    const results = (await modelRequests(scenario))[1].body.messages.filter((m: any) => m.role === "tool");
    expect(results.map((m: any) => [m.tool_call_id, m.content])).toEqual([
      ["call_a", expect.stringContaining("48")],
      ["call_b", "Error: Denied by a person: too big"],
      ["call_c", expect.stringContaining("2")],
    ]);
    const decided = await json(await call(`/v1/approvals?status=approved`, { token: key }));
    expect(decided.data).toEqual([expect.objectContaining({ id: first, arguments: { expression: "6 * 8" } })]);
  });

  it("expires an approval nobody decided: the model hears it was not run", async () => {
    const { key, scenario } = await person();
    await call("/v1/me/tool-policies", { token: key, method: "PUT", json: { rules: [{ tool: "math_evaluate", action: "ask" }] } });
    await script(scenario, [openai.toolCalls([{ id: "call_x", name: "math_evaluate", args: { expression: "3 + 4" } }]), openai.text("It expired.")]);
    const conversation = await newConversation(key);
    const waiting = await json(await send(key, conversation, "Add 3 and 4"));
    const id = waiting.pending_approvals[0];
    // Its expiry passes (as if approval_ttl_seconds had elapsed), and the object's alarm fires.
    await env.DB.prepare(`UPDATE approvals SET expires_at = ? WHERE id = ?`)
      .bind(Date.now() - 1000, id)
      .run();
    expect(await json(await call(`/v1/approvals/${id}`, { token: key }))).toMatchObject({ status: "expired" });
    await expectProblem(await decide(key, id, { decision: "approve" }), 409, "conflict");
    const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(`conversation:${conversation}`));
    await runDurableObjectAlarm(stub);
    await settled(key, conversation);
    const results = (await modelRequests(scenario))[1].body.messages.filter((m: any) => m.role === "tool");
    expect(results.map((m: any) => m.content)).toEqual(["Error: Not run: the approval expired before anyone decided."]);
    expect(await json(await call(`/v1/approvals/${id}`, { token: key }))).toMatchObject({ status: "expired", decided_by: null });
  });

  it("refuses a message queued behind a turn that ends waiting, so the waiting turn still goes on once decided", async () => {
    const { key, scenario } = await person();
    await call("/v1/me/tool-policies", { token: key, method: "PUT", json: { rules: [{ tool: "math_evaluate", action: "ask" }] } });
    await script(scenario, [
      { ...openai.toolCalls([{ id: "call_q", name: "math_evaluate", args: { expression: "2 + 3" } }]), delay_ms: 600 },
      openai.text("It is 5."),
    ]);
    const conversation = await newConversation(key);
    const first = send(key, conversation, "Add 2 and 3");
    // Sent while the first turn still waits for its model: queued behind it.
    let queued: Promise<Response> | undefined;
    for (let i = 0; i < 100 && !queued; i++) {
      const detail = await json(await call(`/v1/conversations/${conversation}`, { token: key }));
      if (detail.status === "processing") queued = send(key, conversation, "And 4 and 4?");
      else await new Promise((r) => setTimeout(r, 10));
    }
    const waiting = await json(await first);
    expect(waiting.status).toBe("awaiting_approval");
    await expectProblem(await queued!, 409, "conflict");
    expect(await modelRequests(scenario)).toHaveLength(1);
    expect((await json(await call(`/v1/conversations/${conversation}`, { token: key }))).state).toBe("awaiting_approval");

    expect((await decide(key, waiting.pending_approvals[0], { decision: "approve" })).status).toBe(200);
    const after = await settled(key, conversation);
    expect(after.messages.at(-1)).toMatchObject({ role: "assistant", status: "completed", content: "It is 5." });
    expect(after.messages.filter((m: any) => m.role === "user").map((m: any) => m.content)).toEqual(["Add 2 and 3"]);
    const results = (await modelRequests(scenario))[1].body.messages.filter((m: any) => m.role === "tool");
    expect(results.map((m: any) => [m.tool_call_id, m.content])).toEqual([["call_q", expect.stringContaining("5")]]);
  });

  it("closes the approvals of a turn stopped in the round that asked: nothing waits on them any more", async () => {
    const { key, scenario } = await person();
    await call("/v1/me/tool-policies", { token: key, method: "PUT", json: { rules: [{ tool: "math_evaluate", action: "ask" }] } });
    await script(scenario, [
      openai.toolCalls([
        { id: "call_held", name: "math_evaluate", args: { expression: "5 + 5" } },
        { id: "call_wait", name: "wait", args: { seconds: 1 } },
      ]),
    ]);
    const conversation = await newConversation(key);
    const sending = send(key, conversation, "Add 5 and 5 after a pause");
    let held: any;
    for (let i = 0; i < 200 && !held; i++) {
      held = (await json(await call("/v1/approvals?status=pending", { token: key }))).data[0];
      if (!held) await new Promise((r) => setTimeout(r, 10));
    }
    expect(held).toMatchObject({ tool: "math_evaluate", tool_call_id: "call_held" });
    expect((await call(`/v1/conversations/${conversation}/stop`, { token: key, json: {} })).status).toBe(202);
    const reply = await json(await sending);
    expect(reply.status).toBe("stopped");
    expect(await json(await call(`/v1/approvals/${held.id}`, { token: key }))).toMatchObject({
      status: "denied",
      note: "The turn was stopped before anyone decided.",
    });
    expect((await json(await call(`/v1/conversations/${conversation}`, { token: key }))).status).toBe("idle");
  });

  it("counts what the turn spent before it waited against max_tokens_per_turn when it goes on", async () => {
    const { key, scenario } = await person();
    const created = await call("/v1/workflows/chat-agent", {
      token: key,
      json: {
        description: "Generate a uuid for the lead.",
        name: "Sums",
        agent_config: { tool_policies: [{ tool: "math_evaluate", action: "ask" }], budget: { max_tokens_per_turn: 100 } },
      },
    });
    expect(created.status).toBe(201);
    const conversation = (await json(created)).conversation_id;
    // The first request reports 120 tokens: past the turn's budget once it goes on.
    await script(scenario, [openai.toolCalls([{ id: "call_sum", name: "math_evaluate", args: { expression: "2 + 3" } }]), openai.text("Never asked.")]);
    const waiting = await json(await send(key, conversation, "Add 2 and 3"));
    expect(waiting.status).toBe("awaiting_approval");
    expect((await decide(key, waiting.pending_approvals[0], { decision: "approve" })).status).toBe(200);
    const after = await settled(key, conversation);
    // The approved call ran; no second request was made.
    expect(after.messages.find((m: any) => m.role === "tool" && m.tool_call_id === "call_sum")?.content).toContain("5");
    expect(after.messages.at(-1)).toMatchObject({ status: "budget_exceeded", error_message: expect.stringContaining("max_tokens_per_turn") });
    expect(await modelRequests(scenario)).toHaveLength(1);
  });

  it("refuses a call an agent's deny rule matches before the account's allow, and the model hears why", async () => {
    const { key, scenario } = await person();
    const chatAgent = (agent_config: Record<string, unknown>) =>
      call("/v1/workflows/chat-agent", { token: key, json: { description: "Generate a uuid for the lead.", name: "Desk", agent_config } });
    await expectProblem(await chatAgent({ tool_policies: [{ tool: "math_*", action: "maybe" }] }), 422, "validation_failed");
    await expectProblem(await chatAgent({ approval_ttl_seconds: 5 }), 422, "validation_failed");
    const created = await chatAgent({ tool_policies: [{ tool: "math_*", action: "deny" }], approval_ttl_seconds: 120 });
    expect(created.status).toBe(201);
    const conversation = (await json(created)).conversation_id;
    await call("/v1/me/tool-policies", { token: key, method: "PUT", json: { rules: [{ tool: "math_*", action: "allow" }] } });
    await script(scenario, [openai.toolCalls([{ id: "call_m", name: "math_evaluate", args: { expression: "1 + 1" } }]), openai.text("Refused.")]);
    const reply = await json(await send(key, conversation, "Add 1 and 1"));
    expect(reply).toMatchObject({ status: "completed", content: "Refused." });
    expect(reply.tools_called[0]).toMatchObject({
      success: false,
      error_message: expect.stringContaining("Refused by policy (rule 1 of the agent's tool_policies)"),
    });
  });

  it("keeps each person's approvals and rules their own, and checks rules when stored", async () => {
    const { key } = await person();
    const other = await person();
    await call("/v1/me/tool-policies", { token: key, method: "PUT", json: { rules: [{ tool: "math_evaluate", action: "ask" }] } });
    await script(other.scenario, []);
    expect(await json(await call("/v1/me/tool-policies", { token: other.key }))).toEqual({ rules: [] });
    await expectProblem(
      await call("/v1/me/tool-policies", { token: key, method: "PUT", json: { rules: [{ tool: "a b", action: "allow" }] } }),
      422,
      "validation_failed",
    );
    await expectProblem(await call("/v1/approvals/apr_nothere", { token: key }), 404, "not_found");
    await expectProblem(await call("/v1/approvals?status=unknown", { token: key }), 422, "validation_failed");
  });
});
