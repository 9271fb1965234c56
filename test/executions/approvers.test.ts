import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { validateSteps } from "../../src/workflows/steps";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, reaches, settled } from "../helpers/runs";

/** An approval between two steps; `approvers` as given. */
const approval = (approvers?: unknown) => [
  { id: "draft", type: "set", values: { subject: "Spring sale" } },
  { id: "approve", type: "wait_for_event", event: "approved", timeout_seconds: 3600, ...(approvers === undefined ? {} : { approvers }) },
  { id: "send", type: "set", values: { sent: "{{subject}} by {{steps.approve.result.by}}" } },
];

const deliver = (key: string, id: string, by: string) => call(`/v1/executions/${id}/events`, { token: key, json: { event: "approved", payload: { by } } });
const statusOf = async (id: string) => (await env.DB.prepare("SELECT status FROM executions WHERE id = ?").bind(id).first<{ status: string }>())!.status;

describe("wait_for_event approvers", () => {
  it('"other": the credential that started the run cannot approve it; another credential of the owner can', async () => {
    const owner = await newUser();
    const starter = await newApiKey(owner);
    const second = await newApiKey(owner);
    const workflow = await newWorkflow(starter.key, { steps: approval("other") });
    const id = await execute(starter.key, workflow.id);
    await reaches(id, "waiting");

    const refused = await expectProblem(await deliver(starter.key, id, "starter"), 403, "forbidden");
    expect(refused.detail).toContain("someone other than the credential that started the run");
    // Refused, nothing changed: the run still waits for its approval.
    expect(await statusOf(id)).toBe("waiting");
    const parked = await json(await call(`/v1/executions/${id}`, { token: starter.key }));
    expect(parked.steps.map((s: any) => [s.step_id, s.status])).toEqual([
      ["draft", "succeeded"],
      ["approve", "waiting"],
    ]);

    expect((await deliver(second.key, id, "second")).status).toBe(202);
    const finished = await settled(starter.key, id);
    expect(finished.status).toBe("succeeded");
    expect(finished.steps[2].result).toEqual({ sent: "Spring sale by second" });
  });

  it('"other" also admits the owner signed in (a session is its own credential), and "any" (the default) admits the starter', async () => {
    const owner = await newUser();
    const { key } = await newApiKey(owner);
    const other = await newWorkflow(key, { steps: approval("other") });
    const signedIn = await execute(key, other.id);
    await reaches(signedIn, "waiting");
    expect((await deliver(owner.accessToken, signedIn, "session")).status).toBe(202);
    expect((await settled(key, signedIn)).status).toBe("succeeded");

    for (const approvers of [undefined, "any"]) {
      const workflow = await newWorkflow(key, { steps: approval(approvers) });
      const id = await execute(key, workflow.id);
      await reaches(id, "waiting");
      expect((await deliver(key, id, "starter")).status).toBe(202);
      expect((await settled(key, id)).status).toBe("succeeded");
    }
  });

  it("a list of user ids: only those people approve, though the run is not theirs; everyone else gets 403 (the owner) or 404", async () => {
    const owner = await newApiKey(await newUser());
    const managerUser = await newUser();
    const manager = await newApiKey(managerUser);
    const stranger = await newApiKey(await newUser());
    const workflow = await newWorkflow(owner.key, { steps: approval([managerUser.id]) });
    const id = await execute(owner.key, workflow.id);
    await reaches(id, "waiting");

    // The owner is not on the list: their own run, so 403 with the reason rather than 404.
    const refused = await expectProblem(await deliver(owner.key, id, "owner"), 403, "forbidden");
    expect(refused.detail).toContain("only by the users it names");
    // Someone not on the list learns nothing about the run.
    await expectProblem(await deliver(stranger.key, id, "stranger"), 404, "not_found");
    // The approver may deliver the event, and nothing more: the run stays the owner's to read.
    await expectProblem(await call(`/v1/executions/${id}`, { token: manager.key }), 404, "not_found");
    expect(await statusOf(id)).toBe("waiting");

    expect((await deliver(manager.key, id, "manager")).status).toBe(202);
    const finished = await settled(owner.key, id);
    expect(finished.status).toBe("succeeded");
    expect(finished.steps[2].result).toEqual({ sent: "Spring sale by manager" });
    // The approval is spent: a second delivery finds nothing waiting.
    await expectProblem(await deliver(manager.key, id, "manager"), 409, "conflict");
  });

  it("an approver of one step cannot approve another step of the run that admits only the owner", async () => {
    const owner = await newApiKey(await newUser());
    const managerUser = await newUser();
    const manager = await newApiKey(managerUser);
    const workflow = await newWorkflow(owner.key, {
      steps: [
        { id: "first", type: "wait_for_event", event: "approved", timeout_seconds: 3600 },
        { id: "second", type: "wait_for_event", event: "approved", timeout_seconds: 3600, approvers: [managerUser.id] },
      ],
    });
    const id = await execute(owner.key, workflow.id);
    await reaches(id, "waiting");
    const refused = await expectProblem(await deliver(manager.key, id, "manager"), 403, "forbidden");
    expect(refused.detail).toContain("owner");
    expect((await deliver(owner.key, id, "owner")).status).toBe(202);
    await reaches(id, "waiting");
    // Parked at the second step now: the owner may not, the manager may.
    await expectProblem(await deliver(owner.key, id, "owner"), 403, "forbidden");
    expect((await deliver(manager.key, id, "manager")).status).toBe(202);
    expect((await settled(owner.key, id)).status).toBe("succeeded");
  });

  it("validates approvers, and a published template never carries anyone's user ids", async () => {
    for (const approvers of ["any", "other", [1], [1, 2, 3]]) {
      const { steps, errors } = validateSteps(approval(approvers));
      expect(errors).toEqual([]);
      expect(steps[1]).toMatchObject({ approvers });
    }
    // Absent stays absent (stored workflows keep their shape): it means "any".
    expect(validateSteps(approval()).steps[1]).not.toHaveProperty("approvers");
    for (const approvers of ["others", "", [], [0], [1.5], ["1"], Array.from({ length: 21 }, (_, i) => i + 1), [4, 4]]) {
      const { errors } = validateSteps(approval(approvers));
      expect(
        errors.map((e) => e.field.split(".").slice(0, 3).join(".")),
        JSON.stringify(approvers),
      ).toContain("steps.1.approvers");
    }

    const author = await newUser();
    const { key } = await newApiKey(author);
    const workflow = await newWorkflow(key, {
      steps: [
        {
          id: "check",
          type: "condition",
          condition: { field: "input.big", operator: "equals", value: true },
          then: [{ id: "approve", type: "wait_for_event", event: "approved", timeout_seconds: 3600, approvers: [author.id] }],
          else: [],
        },
      ],
    });
    const published = await call(`/v1/workflows/${workflow.id}/publish`, { token: key, json: { category: "testing" } });
    expect(published.status).toBe(201);
    const { data: template } = await json(published);
    // The publisher's people approve nothing of someone else's runs; a second pair of eyes stays required.
    expect(template.steps[0].then[0]).toMatchObject({ type: "wait_for_event", approvers: "other" });
  });
});
