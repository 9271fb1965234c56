import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { FAKE, newConversation, newScenario, openai, script } from "../conversations/helpers";
import { execute, settled } from "../helpers/runs";

describe("building workflows", () => {
  it("builds a deterministic workflow from sentences that name tools, with the local provider", async () => {
    const { key } = await newApiKey(await newUser());
    const description = "Generate a uuid for the lead. Then evaluate math expression: 19 * 3. Finally render a text template.";
    const first = await json(await call("/v1/workflows/build", { token: key, json: { description } }));
    expect(first.steps.map((s: any) => [s.id, s.tool])).toEqual([
      ["uuid_generate", "uuid_generate"],
      ["math_evaluate", "math_evaluate"],
      ["text_template", "text_template"],
    ]);
    expect(first.steps[1].arguments).toEqual({ expression: "19 * 3" });
    // What a sentence does not say becomes a variable to fill in.
    expect(first.steps[2].arguments).toEqual({ template: "{{template}}" });
    expect(first.variables).toEqual({ template: null });
    expect(first.workflow_metadata).toEqual({ built_by: "local" });
    const again = await json(await call("/v1/workflows/build", { token: key, json: { description } }));
    expect(again.steps).toEqual(first.steps);

    // It runs: the variable is given at execution time.
    const run = await settled(key, await execute(key, first.id, { template: "Lead ready" }));
    expect(run.status).toBe("succeeded");
    expect(run.steps[1].result).toEqual({ result: 57 });
  });

  it("knows approvals, loops and writing steps in a description", async () => {
    const { key } = await newApiKey(await newUser());
    const description = "Draft a short welcome note for the new leads. Wait for approval within 2 days. For each lead, generate a uuid.";
    const built = await json(await call("/v1/workflows/build", { token: key, json: { description } }));
    // No model on the account: the writing step is a text the person fills in, never an llm step
    // the offline provider would refuse at run time.
    expect(built.steps[0]).toMatchObject({ id: "draft", type: "tool", tool: "text_template", arguments: { template: "{{draft_text}}" } });
    expect(built.variables).toEqual({ draft_text: "(Draft a short welcome note for the new leads.)" });
    // With a model connected, it is a model call on that model.
    await call("/v1/connections", {
      token: key,
      json: { platform: "openai", name: "m", config: { api_key: "sk-test-builder-000000", base_url: `${FAKE()}/s/unused` } },
    });
    const withModel = await json(await call("/v1/workflows/build", { token: key, json: { description } }));
    expect(withModel.steps).toEqual([
      expect.objectContaining({ id: "draft", type: "llm", prompt: "Draft a short welcome note for the new leads.", output: "text", provider: "openai" }),
      expect.objectContaining({ id: "approval", type: "wait_for_event", event: "approved", timeout_seconds: 172800, on_timeout: "fail" }),
      expect.objectContaining({
        id: "each_lead",
        type: "for_each",
        items: "{{input.leads}}",
        as: "lead",
        steps: [expect.objectContaining({ type: "tool", tool: "uuid_generate" })],
      }),
    ]);
  });

  it("offline, links a later step's argument to what an earlier step is known to return, and guesses no other path", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("build-links");
    for (const [platform, config] of [
      ["hubspot", { access_token: "pat-na1-test-0123456789", base_url: `${FAKE()}/s/${scenario}` }],
      ["slack", { bot_token: "xoxb-test-0123456789", base_url: `${FAKE()}/s/${scenario}` }],
    ] as const) {
      expect((await call("/v1/connections", { token: key, json: { platform, name: platform, config } })).status).toBe(201);
    }
    const description = [
      "Create a HubSpot contact, email: ada@example.com.",
      "Then add a HubSpot note to it, body: Met at the fair.",
      "Then create a HubSpot deal, dealname: Fair leads.",
      "Then send a Slack message, channel: #general, text: New lead.",
      "Then send a Slack reply in its thread, text: Details follow.",
      "Then react to the Slack message, name: white_check_mark.",
    ].join(" ");
    const built = await json(await call("/v1/workflows/build", { token: key, json: { description } }));
    expect(built.steps.map((s: any) => [s.id, s.arguments])).toEqual([
      ["hubspot_create_contact", { email: "ada@example.com" }],
      // "to it": the contact just created.
      ["hubspot_create_note", { body: "Met at the fair", contact_id: "{{steps.hubspot_create_contact.result.id}}" }],
      // No word ties the deal to the contact, and its contact_id is optional: nothing is guessed.
      ["hubspot_create_deal", { dealname: "Fair leads" }],
      ["slack_send_message", { channel: "#general", text: "New lead" }],
      // "its thread": the message just sent, in the channel Slack says it went to.
      [
        "slack_send_message_2",
        {
          text: "Details follow",
          channel: "{{steps.slack_send_message.result.channel}}",
          thread_ts: "{{steps.slack_send_message.result.ts}}",
        },
      ],
      // Required arguments no sentence gives, which the latest message returned.
      [
        "slack_add_reaction",
        { name: "white_check_mark", channel: "{{steps.slack_send_message_2.result.channel}}", timestamp: "{{steps.slack_send_message_2.result.ts}}" },
      ],
    ]);
    expect(built.variables).toEqual({});

    // The links hold at run time: each step gets what the one before it returned.
    const run = await settled(key, await execute(key, built.id));
    expect(run.status).toBe("succeeded");
    const sent = await (await fetch(`${FAKE()}/__requests/${scenario}`)).json<any[]>();
    const contactId = run.steps[0].result.id;
    expect(sent.find((r) => r.path === "/crm/v3/objects/notes").body.associations[0].to).toEqual({ id: contactId });
    const posts = sent.filter((r) => r.path === "/chat.postMessage");
    expect(posts[1].body).toEqual({ channel: "C0GENERAL", text: "Details follow", thread_ts: "1763800000.000100" });
    expect(sent.find((r) => r.path === "/reactions.add").body).toMatchObject({ channel: "C0GENERAL", timestamp: "1763800000.000100" });
  });

  it("refuses a description that names no tool", async () => {
    const { key } = await newApiKey(await newUser());
    await expectProblem(await call("/v1/workflows/build", { token: key, json: { description: "Make marketing great again." } }), 422, "validation_failed");
  });

  it("validates a model's workflow, sends it back once for repair, and refuses it when still invalid", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("build");
    await call("/v1/connections", {
      token: key,
      json: { platform: "openai", name: "m", config: { api_key: "sk-test-builder-000000", base_url: `${FAKE()}/s/${scenario}` } },
    });
    const bad = { steps: [{ id: "x", type: "tool", tool: "no_such_tool", arguments: {} }] };
    const good = { steps: [{ id: "make_id", type: "tool", tool: "uuid_generate", arguments: {} }], variables: { campaign: "spring" } };
    await script(scenario, [openai.text(JSON.stringify(bad)), openai.text(`\`\`\`json\n${JSON.stringify(good)}\n\`\`\``)]);
    const built = await json(await call("/v1/workflows/build", { token: key, json: { description: "Make an id", provider: "openai", name: "Ids" } }));
    expect(built).toMatchObject({ name: "Ids", steps: good.steps, variables: good.variables, workflow_metadata: { built_by: "openai" } });

    await script(scenario, [openai.text(JSON.stringify(bad)), openai.text("I cannot do that.")]);
    const refused = await expectProblem(
      await call("/v1/workflows/build", { token: key, json: { description: "Make an id", provider: "openai" } }),
      422,
      "validation_failed",
    );
    expect(refused.detail).toContain("even after one repair");
  });
});

describe("builders and triggers", () => {
  it("the local builder reads what starts the workflow: a weekly schedule, an interval, a provider's event", async () => {
    const { key } = await newApiKey(await newUser());
    const build = async (description: string) => json(await call("/v1/workflows/build", { token: key, json: { description } }));
    const weekly = await build("Every Monday at 9am, generate a uuid for the report.");
    expect(weekly).toMatchObject({ trigger_type: "schedule", trigger_config: { type: "cron", cron_expression: "0 9 * * 1", timezone: "UTC" } });
    // The trigger clause is not read as a step.
    expect(weekly.steps.map((s: any) => s.tool)).toEqual(["uuid_generate"]);
    const often = await build("Every 15 minutes, generate a uuid.");
    expect(often).toMatchObject({ trigger_type: "schedule", trigger_config: { type: "interval", interval_seconds: 900 } });
    const paid = await build("When a Stripe payment succeeds, render a text template thanking the customer.");
    expect(paid).toMatchObject({ trigger_type: "webhook", trigger_config: { verify: "stripe", event_types: ["payment_intent.succeeded"] } });
    const form = await build("Whenever someone submits our Typeform, generate a uuid.");
    expect(form).toMatchObject({ trigger_type: "webhook", trigger_config: { verify: "typeform", event_types: ["form_response"] } });
    const plain = await build("Generate a uuid.");
    expect(plain).toMatchObject({ trigger_type: "manual", trigger_config: {} });
  });

  it("a model's trigger is checked like a saved one and sent back for repair when it is not valid", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("build-trigger");
    await call("/v1/connections", {
      token: key,
      json: { platform: "openai", name: "m", config: { api_key: "sk-test-builder-000000", base_url: `${FAKE()}/s/${scenario}` } },
    });
    const steps = [{ id: "make_id", type: "tool", tool: "uuid_generate", arguments: {} }];
    const badTrigger = { steps, trigger: { type: "poll", config: { tool: "http_request", interval_seconds: 60 } } };
    const poll = {
      tool: "http_request",
      arguments: { url: "https://example.com/feed.json" },
      interval_seconds: 300,
      items_path: "body.items",
      id_path: "id",
    };
    await script(scenario, [openai.text(JSON.stringify(badTrigger)), openai.text(JSON.stringify({ steps, trigger: { type: "poll", config: poll } }))]);
    const built = await json(
      await call("/v1/workflows/build", { token: key, json: { description: "For each new feed item, make an id", provider: "openai" } }),
    );
    expect(built).toMatchObject({ trigger_type: "poll", trigger_config: { ...poll, emit: "each", emit_existing: false } });
    const requests = await (await fetch(`${FAKE()}/__requests/${scenario}`)).json<any[]>();
    expect(JSON.stringify(requests[1].body.messages.at(-1))).toContain("trigger_config.items_path");
  });
});

describe("extracting a workflow from a conversation", () => {
  it("turns the selected tool calls into steps and parameterized fields into variables with their original values", async () => {
    const { key } = await newApiKey(await newUser());
    const conversation = await newConversation(key);
    for (const content of ["math evaluate expression: 120 * 0.2", "generate a uuid please", "math evaluate expression: 7 + 7"]) {
      await call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content } });
    }
    const messages = await json(await call(`/v1/conversations/${conversation}/messages`, { token: key }));
    const callIds = messages.filter((m: any) => m.role === "tool").map((m: any) => m.tool_call_id);
    expect(callIds).toHaveLength(3);

    const response = await call("/v1/workflows/extract", {
      token: key,
      json: {
        conversation_id: conversation,
        workflow_name: "Discount calc",
        selected_step_ids: [callIds[0], callIds[2]],
        parameterize_fields: [`${callIds[0]}.expression`],
      },
    });
    expect(response.status).toBe(201);
    const workflow = await json(response);
    expect(workflow.steps).toEqual([
      expect.objectContaining({ id: "step_1", tool: "math_evaluate", arguments: { expression: "{{expression}}" } }),
      expect.objectContaining({ id: "step_2", tool: "math_evaluate", arguments: { expression: "7 + 7" } }),
    ]);
    expect(workflow.variables).toEqual({ expression: "120 * 0.2" });
    expect(workflow.workflow_metadata).toEqual({ extracted_from_conversation: conversation });

    const run = await settled(key, await execute(key, workflow.id));
    expect(run.steps.map((s: any) => s.result)).toEqual([{ result: 24 }, { result: 14 }]);
    const overridden = await settled(key, await execute(key, workflow.id, { expression: "1 + 2" }));
    expect(overridden.steps[0].result).toEqual({ result: 3 });
  });

  it("links a value an earlier call returned instead of copying it: each run passes along what it got", async () => {
    const { key } = await newApiKey(await newUser());
    const conversation = await newConversation(key);
    await call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content: "generate a uuid please" } });
    let messages = await json(await call(`/v1/conversations/${conversation}/messages`, { token: key }));
    const uuid = JSON.parse(messages.find((m: any) => m.role === "tool").content).uuid;
    await call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content: `render a text template: ${uuid}` } });
    messages = await json(await call(`/v1/conversations/${conversation}/messages`, { token: key }));
    const calls = messages.filter((m: any) => m.role === "assistant").flatMap((m: any) => m.tools_called);
    expect(calls.map((c: any) => c.name)).toEqual(["uuid_generate", "text_template"]);
    const workflow = await json(await call("/v1/workflows/extract", { token: key, json: { conversation_id: conversation, workflow_name: "Linked" } }));
    expect(workflow.steps[1].arguments.template).toBe("{{steps.step_1.result.uuid}}");
    const run = await settled(key, await execute(key, workflow.id));
    expect(run.steps[1].result.text).toBe(run.steps[0].result.uuid);
    expect(run.steps[1].result.text).not.toBe(uuid);
  });

  it("turns repeated calls of one tool into a loop over what differed, with loop_repeated_calls", async () => {
    const { key } = await newApiKey(await newUser());
    const conversation = await newConversation(key);
    for (const content of ["generate a uuid please", "math evaluate expression: 1 + 1", "math evaluate expression: 2 + 2", "math evaluate expression: 3 + 3"]) {
      await call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content } });
    }
    const workflow = await json(
      await call("/v1/workflows/extract", { token: key, json: { conversation_id: conversation, workflow_name: "Sums", loop_repeated_calls: true } }),
    );
    expect(workflow.steps).toEqual([
      expect.objectContaining({ id: "step_1", type: "tool", tool: "uuid_generate" }),
      expect.objectContaining({
        id: "each_step_2",
        type: "for_each",
        items: [{ expression: "1 + 1" }, { expression: "2 + 2" }, { expression: "3 + 3" }],
        steps: [expect.objectContaining({ tool: "math_evaluate", arguments: { expression: "{{item.expression}}" } })],
      }),
    ]);
    const run = await settled(key, await execute(key, workflow.id));
    expect(run.steps.find((s: any) => s.step_id === "each_step_2").result).toEqual([
      { step_2: { result: 2 } },
      { step_2: { result: 4 } },
      { step_2: { result: 6 } },
    ]);
  });

  it("refuses unknown step ids and another user's conversation", async () => {
    const owner = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const conversation = await newConversation(owner.key);
    await call(`/v1/conversations/${conversation}/messages`, { token: owner.key, json: { content: "generate a uuid please" } });
    await expectProblem(
      await call("/v1/workflows/extract", { token: owner.key, json: { conversation_id: conversation, workflow_name: "x", selected_step_ids: ["nope"] } }),
      422,
      "validation_failed",
    );
    await expectProblem(
      await call("/v1/workflows/extract", { token: stranger.key, json: { conversation_id: conversation, workflow_name: "x" } }),
      404,
      "not_found",
    );
  });
});
