// The trace of a chat turn (DESIGN §6.3 Traces): a root `invoke_agent` span, a `chat <model>`
// span per model request with the model and tokens the provider reported, an `execute_tool
// <tool>` span per call, all children of the root and within its time; failures named by
// `error.type`; nothing of the arguments or results; another user's is 404.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { connectModel, newConversation, newScenario, openai, script } from "../conversations/helpers";
import { scenarioUrl } from "../tools/platform-helpers";

async function person(label: string) {
  const { key } = await newApiKey(await newUser());
  const scenario = newScenario(label);
  await connectModel(key, scenario);
  return { key, scenario };
}

const send = (key: string, conversation: number, content: string) =>
  call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content, provider: "openai" } });

const traceOf = (key: string, conversation: number, message: number) => call(`/v1/conversations/${conversation}/messages/${message}/trace`, { token: key });

/** The conversation once its turn has gone on by itself and finished. */
async function settled(key: string, conversation: number) {
  for (let i = 0; i < 200; i++) {
    const detail = await json(await call(`/v1/conversations/${conversation}`, { token: key }));
    if (detail.status === "idle") return detail;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the turn did not go on");
}

const ms = (iso: string) => Date.parse(iso);

describe("a chat turn's trace", () => {
  it("has one invoke_agent root, a chat span per model request and an execute_tool span per call, within the root's time", async () => {
    const { key, scenario } = await person("trace");
    await script(scenario, [
      openai.toolCalls(
        [
          { id: "call_math", name: "math_evaluate", args: { expression: "1200 * 0.15" } },
          { id: "call_tpl", name: "text_template", args: { template: "Hello {{name}}", values: { name: "Ada Lovelace" } } },
        ],
        { prompt_tokens: 111, completion_tokens: 22 },
      ),
      openai.text("15% of 1200 is 180.", { prompt_tokens: 333, completion_tokens: 44 }),
    ]);
    const conversation = await newConversation(key);
    const reply = await json(await send(key, conversation, "Work out 15% of 1200 and greet Ada"));
    expect(reply).toMatchObject({ role: "assistant", status: "completed" });

    const response = await traceOf(key, conversation, reply.id);
    expect(response.status).toBe(200);
    const trace = await json(response);
    expect(trace.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const [root, ...children] = trace.spans;
    expect(root).toMatchObject({
      name: "invoke_agent",
      parent_span_id: null,
      status: "ok",
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "fake-gpt",
        "gen_ai.conversation.id": String(conversation),
        "gen_ai.usage.input_tokens": 111 + 333,
        "gen_ai.usage.output_tokens": 22 + 44,
        "hub.message.id": reply.id,
        "hub.turn.status": "completed",
      },
    });
    for (const span of trace.spans) {
      expect(span.span_id).toMatch(/^[0-9a-f]{16}$/);
      expect(ms(span.start_time)).toBeLessThanOrEqual(ms(span.end_time));
    }
    expect(new Set(trace.spans.map((s: any) => s.span_id)).size).toBe(trace.spans.length);
    for (const child of children) {
      expect(child.parent_span_id).toBe(root.span_id);
      expect(ms(child.start_time)).toBeGreaterThanOrEqual(ms(root.start_time));
      expect(ms(child.end_time)).toBeLessThanOrEqual(ms(root.end_time));
    }

    const chats = children.filter((s: any) => s.attributes["gen_ai.operation.name"] === "chat");
    expect(chats.map((s: any) => [s.name, s.kind, s.status, s.attributes["hub.round"]])).toEqual([
      ["chat fake-gpt", "client", "ok", 1],
      ["chat fake-gpt", "client", "ok", 2],
    ]);
    expect(chats.map((s: any) => s.attributes)).toEqual([
      expect.objectContaining({
        "gen_ai.request.model": "fake-gpt",
        "gen_ai.response.model": "fake-gpt",
        "gen_ai.usage.input_tokens": 111,
        "gen_ai.usage.output_tokens": 22,
      }),
      expect.objectContaining({
        "gen_ai.request.model": "fake-gpt",
        "gen_ai.response.model": "fake-gpt",
        "gen_ai.usage.input_tokens": 333,
        "gen_ai.usage.output_tokens": 44,
      }),
    ]);
    const tools = children.filter((s: any) => s.attributes["gen_ai.operation.name"] === "execute_tool");
    expect(tools.map((s: any) => [s.name, s.status, s.attributes["gen_ai.tool.name"], s.attributes["gen_ai.tool.call.id"]]).sort()).toEqual([
      ["execute_tool math_evaluate", "ok", "math_evaluate", "call_math"],
      ["execute_tool text_template", "ok", "text_template", "call_tpl"],
    ]);
    // The calls ran between the two model requests.
    for (const tool of tools) {
      expect(ms(tool.start_time)).toBeGreaterThanOrEqual(ms(chats[0].end_time));
      expect(ms(tool.end_time)).toBeLessThanOrEqual(ms(chats[1].start_time));
    }
    expect(children).toHaveLength(4);
    // Names, ids, models and counts only: neither the arguments nor the results.
    const text = JSON.stringify(trace);
    expect(text).not.toContain("Ada Lovelace");
    expect(text).not.toContain("1200");
    expect(text).not.toContain("180");

    // The user's message has no trace.
    const messages = await json(await call(`/v1/conversations/${conversation}/messages`, { token: key }));
    expect((await traceOf(key, conversation, messages[0].id)).status).toBe(404);
  });

  it("names what failed: a failing tool's span and a provider that fails", async () => {
    const { key, scenario } = await person("tracefail");
    await script(scenario, [
      openai.toolCalls([
        { id: "call_bad", name: "math_evaluate", args: { expression: "1 +" } },
        { id: "call_ok", name: "math_evaluate", args: { expression: "2 + 2" } },
      ]),
      openai.text("One failed; 2 + 2 is 4."),
      { status: 500, body: { error: { message: "upstream exploded", type: "server_error" } } },
    ]);
    const conversation = await newConversation(key);
    const reply = await json(await send(key, conversation, "Two sums"));
    expect(reply.tools_called.map((c: any) => [c.id, c.success])).toEqual([
      ["call_bad", false],
      ["call_ok", true],
    ]);
    const trace = await json(await traceOf(key, conversation, reply.id));
    const byCall = new Map(trace.spans.filter((s: any) => s.attributes["gen_ai.tool.call.id"]).map((s: any) => [s.attributes["gen_ai.tool.call.id"], s]));
    expect(byCall.get("call_bad")).toMatchObject({ status: "error", attributes: { "error.type": "tool_error", "gen_ai.tool.name": "math_evaluate" } });
    expect(byCall.get("call_ok")).toMatchObject({ status: "ok" });
    expect((byCall.get("call_ok") as any).attributes["error.type"]).toBeUndefined();
    expect(trace.spans[0].status).toBe("ok");

    // The next turn's model request fails: its chat span and the root say so.
    const failed = await json(await send(key, conversation, "Again"));
    expect(failed.status).toBe("error");
    const broken = await json(await traceOf(key, conversation, failed.id));
    expect(broken.spans[0]).toMatchObject({ status: "error", attributes: { "error.type": "provider_error", "hub.turn.status": "error" } });
    expect(broken.spans.slice(1)).toEqual([
      expect.objectContaining({ name: "chat fake-gpt", status: "error", attributes: expect.objectContaining({ "error.type": "provider_error" }) }),
    ]);
    expect(broken.trace_id).not.toBe(trace.trace_id);
  });

  it("is another user's: 404, as is an unknown message; data:read reads it", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const scenario = newScenario("traceiso");
    await connectModel(key, scenario);
    await script(scenario, [openai.text("Hi.")]);
    const conversation = await newConversation(key);
    const reply = await json(await send(key, conversation, "Hello"));
    expect((await traceOf(key, conversation, reply.id)).status).toBe(200);

    const { key: other } = await newApiKey(await newUser());
    const refused = await traceOf(other, conversation, reply.id);
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toContain("invoke_agent");
    expect((await traceOf(key, conversation, reply.id + 1000)).status).toBe(404);
    const { key: reader } = await newApiKey(user, { scopes: ["data:read"] });
    expect((await traceOf(reader, conversation, reply.id)).status).toBe(200);

    // Deleting the conversation deletes its traces.
    const spansOf = () => env.DB.prepare("SELECT count(*) AS n FROM trace_spans WHERE conversation_id = ?").bind(conversation).first<{ n: number }>();
    expect((await spansOf())!.n).toBe(2);
    expect((await call(`/v1/conversations/${conversation}`, { method: "DELETE", token: key })).status).toBe(204);
    expect((await spansOf())!.n).toBe(0);
  });

  it("of a turn that waited for approval is two traces, one per stored answer", async () => {
    const { key, scenario } = await person("traceappr");
    const calendly = newScenario("cal");
    const connected = await call("/v1/connections", {
      token: key,
      json: { platform: "calendly", name: "Calendly", config: { access_token: `cal-${crypto.randomUUID()}`, base_url: `${scenarioUrl(calendly)}/calendly` } },
    });
    expect(connected.status).toBe(201);
    await script(scenario, [
      openai.toolCalls([
        { id: "call_cancel", name: "calendly_cancel_event", args: { event_uuid: "EV3000000000000", reason: "Ill" } },
        { id: "call_math", name: "math_evaluate", args: { expression: "2 + 2" } },
      ]),
      openai.text("Cancelled; 2 + 2 is 4."),
    ]);
    const conversation = await newConversation(key);
    const waiting = await json(await send(key, conversation, "Cancel it and add 2 and 2"));
    expect(waiting.status).toBe("awaiting_approval");

    const first = await json(await traceOf(key, conversation, waiting.id));
    expect(first.spans[0]).toMatchObject({ status: "unset", attributes: { "hub.turn.status": "awaiting_approval" } });
    const held = first.spans.find((s: any) => s.attributes["gen_ai.tool.call.id"] === "call_cancel");
    expect(held).toMatchObject({ status: "unset", attributes: { "hub.tool.awaiting_approval": true } });
    expect(first.spans.find((s: any) => s.attributes["gen_ai.tool.call.id"] === "call_math")).toMatchObject({ status: "ok" });

    const decided = await call(`/v1/approvals/${waiting.pending_approvals[0]}/decision`, { token: key, json: { decision: "approve" } });
    expect(decided.status).toBe(200);
    const after = await settled(key, conversation);
    const final = after.messages.at(-1);
    expect(final).toMatchObject({ role: "assistant", status: "completed" });
    const second = await json(await traceOf(key, conversation, final.id));
    expect(second.trace_id).not.toBe(first.trace_id);
    // The approved call ran in the second part, then the model answered.
    expect(second.spans.slice(1).map((s: any) => s.name)).toEqual(["execute_tool calendly_cancel_event", "chat fake-gpt"]);
    expect(second.spans[1]).toMatchObject({ status: "ok", attributes: { "gen_ai.tool.call.id": "call_cancel" } });
    expect(second.spans[0]).toMatchObject({ status: "ok", attributes: { "hub.turn.status": "completed" } });
  });
});
