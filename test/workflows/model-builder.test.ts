import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { FAKE, anthropic, modelRequests, newScenario, openai, script } from "../conversations/helpers";
import { execute, settled } from "../helpers/runs";

/** An account whose model is the fake OpenAI-compatible server, answering from `scenario`. */
async function withOpenAi(scenario: string) {
  const { key } = await newApiKey(await newUser());
  await call("/v1/connections", {
    token: key,
    json: { platform: "openai", name: "m", config: { api_key: "sk-test-builder-000000", base_url: `${FAKE()}/s/${scenario}` } },
  });
  return key;
}

/** What a model that follows the guide answers for "every Monday at 9, make an id and, if there is one, write it down". */
const linked = {
  steps: [
    { id: "make_id", type: "tool", tool: "uuid_generate", arguments: {} },
    {
      id: "has_id",
      type: "condition",
      condition: { field: "steps.make_id.result.uuid", operator: "is_not_empty" },
      then: [{ id: "note", type: "tool", tool: "text_template", arguments: { template: "Lead {{steps.make_id.result.uuid}} for {{campaign}}" } }],
      else: [],
    },
  ],
  variables: { campaign: "spring" },
  trigger: { type: "schedule", config: { type: "cron", cron_expression: "0 9 * * 1" } },
};

describe("building a workflow with a model", () => {
  it("asks for structured output against the step schema and keeps the condition, the link and the schedule it answers", async () => {
    const scenario = newScenario("build-structured");
    const key = await withOpenAi(scenario);
    await script(scenario, [openai.text(JSON.stringify(linked))]);
    const description = "Every Monday at 9, make an id for the lead and, if there is one, write a note with it.";
    const built = await json(await call("/v1/workflows/build", { token: key, json: { description, provider: "openai" } }));
    expect(built).toMatchObject({
      steps: [linked.steps[0], { ...linked.steps[1], then: [expect.objectContaining(linked.steps[1]!.then![0])] }],
      variables: { campaign: "spring" },
      trigger_type: "schedule",
      trigger_config: { type: "cron", cron_expression: "0 9 * * 1" },
    });

    // The request is OpenAI's structured output: response_format json_schema, the steps' schema inside.
    const [request] = await modelRequests(scenario);
    expect(request.path).toBe("/chat/completions");
    const format = request.body.response_format;
    expect(format).toMatchObject({ type: "json_schema", json_schema: { name: "workflow", strict: false } });
    const schema = format.json_schema.schema;
    expect(schema).toMatchObject({ type: "object", required: ["steps"], properties: { steps: { type: "array" } } });
    const stepTypes = JSON.stringify(schema).match(/"const":"[a-z_]+"/g);
    expect(stepTypes).toEqual(expect.arrayContaining(['"const":"condition"', '"const":"code"', '"const":"tool"', '"const":"llm"']));
    // The guide tells the model how to link results and when to branch.
    const system = request.body.messages[0].content;
    expect(system).toContain("{{steps.<id>.result.<path>}}");
    expect(system).toContain('"type":"code"');
    expect(system).toContain("use a condition step");

    // It runs: the note carries the id the first step made, not a copy.
    const run = await settled(key, await execute(key, built.id, {}));
    expect(run.status).toBe("succeeded");
    const made = run.steps.find((s: any) => s.step_id === "make_id").result.uuid;
    expect(run.steps.find((s: any) => s.step_id === "note").result.text).toBe(`Lead ${made} for spring`);
  });

  it("sends a link to a step that does not run before it back for repair", async () => {
    const scenario = newScenario("build-dangling");
    const key = await withOpenAi(scenario);
    const early = {
      steps: [
        { id: "note", type: "tool", tool: "text_template", arguments: { template: "Lead {{steps.make_id.result.uuid}}" } },
        { id: "make_id", type: "tool", tool: "uuid_generate", arguments: {} },
      ],
    };
    await script(scenario, [openai.text(JSON.stringify(early)), openai.text(JSON.stringify(linked))]);
    const built = await json(await call("/v1/workflows/build", { token: key, json: { description: "Make an id, then a note with it", provider: "openai" } }));
    expect(built.steps.map((s: any) => s.id)).toEqual(["make_id", "has_id"]);
    const requests = await modelRequests(scenario);
    expect(requests).toHaveLength(2);
    expect(requests[1].body.messages.at(-1).content).toContain("refers to a step that has not run yet");
  });

  it("asks again without the schema when the model server refuses response_format, and parses a fenced answer", async () => {
    const scenario = newScenario("build-noschema");
    const key = await withOpenAi(scenario);
    // How OpenAI-compatible servers refuse a parameter they do not take: 400 invalid_request_error.
    const refusal = {
      status: 400,
      body: {
        error: {
          message: "response_format.type 'json_schema' is not supported by this model",
          type: "invalid_request_error",
          param: "response_format",
          code: null,
        },
      },
    };
    await script(scenario, [refusal, openai.text(`Here it is:\n\`\`\`json\n${JSON.stringify(linked)}\n\`\`\``)]);
    const built = await json(await call("/v1/workflows/build", { token: key, json: { description: "Every Monday at 9, make an id", provider: "openai" } }));
    expect(built).toMatchObject({ trigger_type: "schedule", steps: [{ id: "make_id" }, { id: "has_id", type: "condition" }] });
    const requests = await modelRequests(scenario);
    expect(requests.map((r) => r.body.response_format?.type ?? null)).toEqual(["json_schema", null]);
  });

  it("with Anthropic, asks for the workflow through a forced JSON tool and reads its input", async () => {
    const scenario = newScenario("build-anthropic");
    const { key } = await newApiKey(await newUser());
    await call("/v1/connections", {
      token: key,
      json: { platform: "anthropic", name: "Claude", config: { api_key: "sk-ant-test-0123456789", base_url: `${FAKE()}/s/${scenario}`, model: "fake-claude" } },
    });
    await script(scenario, [anthropic.toolUse([{ id: "toolu_1", name: "json", input: linked }])]);
    const built = await json(await call("/v1/workflows/build", { token: key, json: { description: "Every Monday at 9, make an id", provider: "anthropic" } }));
    expect(built).toMatchObject({ trigger_type: "schedule", variables: { campaign: "spring" }, steps: [{ id: "make_id" }, { id: "has_id" }] });
    const [request] = await modelRequests(scenario);
    expect(request.path).toBe("/messages");
    // The only tool offered, and a tool must be used ("any"): the answer is the workflow's JSON.
    expect(request.body.tool_choice).toMatchObject({ type: "any" });
    expect(request.body.tools).toEqual([expect.objectContaining({ name: "json", input_schema: expect.objectContaining({ required: ["steps"] }) })]);
  });
});
