// The `agent` step's calls carry the idempotency key `<execution>:<step>:<n>` (DESIGN §6.3), n
// the call's number within the step, so a call a restart cut short is repeated under its key.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newApiKey, newUser } from "../helpers/api";
import { connectModel, modelRequests, newScenario, openai, script } from "../conversations/helpers";
import { execute, newWorkflow, settled } from "../helpers/runs";

describe("the agent step's idempotency keys", () => {
  it("sends each call's key as <execution>:<step>:<n>, numbered over the step's rounds", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("agentkeys");
    const target = newScenario("agentkeystarget");
    await connectModel(key, scenario);
    const fetchThing = (id: string, thing: string) => ({ id, name: "http_request", args: { url: `${env.TEST_FAKE_URL}/s/${target}/things/${thing}` } });
    await script(scenario, [
      openai.toolCalls([fetchThing("call_a", "a"), fetchThing("call_b", "b")]),
      openai.toolCalls([fetchThing("call_c", "c")]),
      openai.text("Fetched all three."),
    ]);
    const workflow = await newWorkflow(key, {
      steps: [{ id: "think", type: "agent", prompt: "Fetch a, b and c", provider: "openai", tools: ["http_request"] }],
    });
    const id = await execute(key, workflow.id);
    const run = await settled(key, id);
    expect(run.status).toBe("succeeded");
    const sent: any[] = await modelRequests(target);
    expect(sent.map((r) => [r.path, r.headers["idempotency-key"]]).sort()).toEqual([
      ["/things/a", `${id}:think:1`],
      ["/things/b", `${id}:think:2`],
      ["/things/c", `${id}:think:3`],
    ]);
  });
});
