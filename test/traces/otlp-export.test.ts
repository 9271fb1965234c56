// Traces sent to a collector as OTLP/HTTP JSON (DESIGN §6.3 Traces) when OTEL_EXPORTER_OTLP_ENDPOINT
// is set: the body is an ExportTraceServiceRequest with hex ids, nanosecond strings and typed
// attributes, the OTEL_EXPORTER_OTLP_HEADERS are sent, and a collector that fails, hangs or is
// not there changes nothing of the turn or the run. The platform fake records what it receives.
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";
import { connectModel, newConversation, newScenario, openai, script } from "../conversations/helpers";
import { type Recorded, requestsOf, respondWith, scenarioUrl } from "../tools/platform-helpers";

const HEADERS = "authorization=Bearer%20otlp-secret-123,x-team=growth";

/** A conversation whose Durable Object runs its turns with these Worker settings. */
async function conversationWith(key: string, settings: Record<string, string>) {
  const conversation = await newConversation(key);
  const namespace = env.CONVERSATIONS as unknown as DurableObjectNamespace;
  const stub = namespace.get(namespace.idFromName(`conversation:${conversation}`));
  const swap = (instance: { env: unknown }) => {
    instance.env = { ...(instance.env as object), ...settings };
  };
  await runInDurableObject(stub as any, swap as any);
  return conversation;
}

/** The requests a collector scenario received, once there are `count` (the export runs beside the turn). */
async function received(collector: string, count = 1): Promise<Recorded[]> {
  for (let i = 0; i < 200; i++) {
    const requests = await requestsOf(collector);
    if (requests.length >= count) return requests;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the collector received fewer than ${count} requests`);
}

/** Checks the body is an OTLP JSON ExportTraceServiceRequest and answers its spans. */
function otlpSpans(body: any): any[] {
  expect(body.resourceSpans).toHaveLength(1);
  expect(body.resourceSpans[0].resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "agent-automation-hub" } });
  const scope = body.resourceSpans[0].scopeSpans[0];
  expect(scope.scope.name).toBe("agent-automation-hub");
  for (const span of scope.spans) {
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    if (span.parentSpanId !== undefined) expect(span.parentSpanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.startTimeUnixNano).toMatch(/^\d{19}$/);
    expect(span.endTimeUnixNano).toMatch(/^\d{19}$/);
    expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
    expect([1, 3]).toContain(span.kind);
    expect([0, 1, 2]).toContain(span.status.code);
    for (const attribute of span.attributes) {
      expect(typeof attribute.key).toBe("string");
      const kinds = Object.keys(attribute.value);
      expect(kinds).toHaveLength(1);
      expect(["stringValue", "intValue", "doubleValue", "boolValue"]).toContain(kinds[0]);
      if (kinds[0] === "intValue") expect(attribute.value.intValue).toMatch(/^-?\d+$/);
    }
  }
  return scope.spans;
}

const attribute = (span: any, key: string) => {
  const value = span.attributes.find((a: any) => a.key === key)?.value;
  return value && Object.values(value)[0];
};

const send = (key: string, conversation: number, content: string) =>
  call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content, provider: "openai" } });

async function person(label: string) {
  const { key } = await newApiKey(await newUser());
  const scenario = newScenario(label);
  await connectModel(key, scenario);
  return { key, scenario };
}

describe("OTLP export of a chat turn's trace", () => {
  it("POSTs the spans as OTLP JSON to <endpoint>/v1/traces with the configured headers", async () => {
    const { key, scenario } = await person("otlp");
    const collector = newScenario("collector");
    await respondWith(collector, 200, { partialSuccess: {} });
    await script(scenario, [
      openai.toolCalls([{ id: "call_sum", name: "math_evaluate", args: { expression: "6 * 7" } }], { prompt_tokens: 70, completion_tokens: 9 }),
      openai.text("42.", { prompt_tokens: 90, completion_tokens: 3 }),
    ]);
    const conversation = await conversationWith(key, { OTEL_EXPORTER_OTLP_ENDPOINT: `${scenarioUrl(collector)}/otlp/`, OTEL_EXPORTER_OTLP_HEADERS: HEADERS });
    const reply = await json(await send(key, conversation, "Six times seven"));
    expect(reply.status).toBe("completed");

    const [request] = await received(collector);
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe("/otlp/v1/traces");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers.authorization).toBe("Bearer otlp-secret-123");
    expect(request!.headers["x-team"]).toBe("growth");
    const spans = otlpSpans(request!.body);

    // The same trace the API shows.
    const trace = await json(await call(`/v1/conversations/${conversation}/messages/${reply.id}/trace`, { token: key }));
    expect(spans.map((s) => [s.traceId, s.spanId, s.name])).toEqual(trace.spans.map((s: any) => [trace.trace_id, s.span_id, s.name]));
    const [root, ...children] = spans;
    expect(root.parentSpanId).toBeUndefined();
    expect(root).toMatchObject({ name: "invoke_agent", kind: 1, status: { code: 1 } });
    expect(attribute(root, "gen_ai.operation.name")).toBe("invoke_agent");
    expect(attribute(root, "gen_ai.usage.input_tokens")).toBe("160");
    for (const child of children) expect(child.parentSpanId).toBe(root.spanId);
    const chat = children.find((s) => attribute(s, "gen_ai.operation.name") === "chat");
    expect(chat).toMatchObject({ name: "chat fake-gpt", kind: 3 });
    expect(attribute(chat, "gen_ai.request.model")).toBe("fake-gpt");
    expect(attribute(chat, "gen_ai.usage.input_tokens")).toBe("70");
    expect(attribute(chat, "gen_ai.usage.output_tokens")).toBe("9");
    const tool = children.find((s) => attribute(s, "gen_ai.operation.name") === "execute_tool");
    expect(tool).toMatchObject({ name: "execute_tool math_evaluate", kind: 1, status: { code: 1 } });
    expect(attribute(tool, "gen_ai.tool.call.id")).toBe("call_sum");
    // No arguments or results travel.
    expect(request!.raw).not.toContain("6 * 7");
    expect(request!.raw).not.toContain("Six times seven");
  });

  it("leaves the turn completed, and its trace stored, when the collector answers 500, is not there, or hangs", async () => {
    const { key, scenario } = await person("otlpfail");
    const failing = newScenario("collector500");
    await respondWith(failing, 500, { message: "collector down" });
    await script(scenario, [openai.text("One."), openai.text("Two."), openai.text("Three.")]);

    const broken = await conversationWith(key, { OTEL_EXPORTER_OTLP_ENDPOINT: scenarioUrl(failing), OTEL_EXPORTER_OTLP_HEADERS: HEADERS });
    const first = await json(await send(key, broken, "One"));
    expect(first).toMatchObject({ status: "completed", content: "One." });
    // Tried once, not again.
    expect(await received(failing)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(await requestsOf(failing)).toHaveLength(1);
    expect((await call(`/v1/conversations/${broken}/messages/${first.id}/trace`, { token: key })).status).toBe(200);

    // Nothing listens there.
    const absent = await conversationWith(key, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1" });
    const second = await json(await send(key, absent, "Two"));
    expect(second).toMatchObject({ status: "completed", content: "Two." });
    expect((await call(`/v1/conversations/${absent}/messages/${second.id}/trace`, { token: key })).status).toBe(200);

    // A collector that takes its time does not hold the answer back.
    const slow = newScenario("collectorslow");
    await fetch(`${env.TEST_FAKE_URL}/__script/${slow}`, { method: "POST", body: JSON.stringify([{ status: 200, body: {}, delay_ms: 4000 }]) });
    const waiting = await conversationWith(key, { OTEL_EXPORTER_OTLP_ENDPOINT: scenarioUrl(slow) });
    const started = Date.now();
    const third = await json(await send(key, waiting, "Three"));
    expect(third).toMatchObject({ status: "completed", content: "Three." });
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe("OTLP export of a run's trace", () => {
  /** A request through the Worker with these settings, waiting for what it leaves running. */
  async function execute(settings: Record<string, string>, key: string, workflowId: number) {
    const ctx = createExecutionContext();
    const request = new Request(`http://hub.test/v1/workflows/${workflowId}/execute`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", Prefer: "wait=30", "CF-Connecting-IP": "203.0.113.77" },
      body: JSON.stringify({ input_data: { score: 21 } }),
    });
    const response = await worker.fetch(request, { ...env, ...settings } as never, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  }

  it("sends the run's spans once it has ended; a collector that is not there changes nothing", async () => {
    const { key } = await newApiKey(await newUser());
    const collector = newScenario("runcollector");
    await respondWith(collector, 200, {});
    const workflow = await newWorkflow(key, {
      workflow_name: "Double it",
      steps: [
        { id: "doubled", type: "tool", tool: "math_evaluate", arguments: { expression: "{{input.score}} * 2" } },
        { id: "kept", type: "set", values: { done: true } },
      ],
    });
    const response = await execute({ OTEL_EXPORTER_OTLP_ENDPOINT: scenarioUrl(collector), OTEL_EXPORTER_OTLP_HEADERS: HEADERS }, key, workflow.id);
    expect(response.status).toBe(200);
    const execution = await json(response);
    expect(execution.status).toBe("succeeded");

    const [request] = await received(collector);
    expect(request!.path).toBe("/v1/traces");
    expect(request!.headers.authorization).toBe("Bearer otlp-secret-123");
    const spans = otlpSpans(request!.body);
    expect(spans.map((s) => s.name)).toEqual(["invoke_workflow Double it", "execute_tool math_evaluate", "set kept"]);
    expect(attribute(spans[0], "hub.execution.id")).toBe(execution.id);
    const trace = await json(await call(`/v1/executions/${execution.id}/trace`, { token: key }));
    expect(spans.map((s) => s.spanId)).toEqual(trace.spans.map((s: any) => s.span_id));
    expect(spans[0].traceId).toBe(trace.trace_id);

    const unreachable = await execute({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1" }, key, workflow.id);
    expect(unreachable.status).toBe(200);
    expect(await json(unreachable)).toMatchObject({ status: "succeeded" });
    // Without the setting nothing is sent.
    await execute({}, key, workflow.id);
    expect(await requestsOf(collector)).toHaveLength(1);
  });
});
