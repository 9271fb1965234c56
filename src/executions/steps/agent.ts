import { runAgentLoop, refusal } from "../../agent-loop/loop";
import type { ToolOutcome } from "../../agent-loop/types";
import { approvalsByIds } from "../../approvals/service";
import type { ApprovalView } from "../../approvals/present";
import { turnTools } from "../../conversations/turn-tools";
import { HubError } from "../../core/errors";
import { resolveProvider } from "../../llm/providers";
import type { ChatMessage, ChatProvider } from "../../llm/types";
import { UserSchemaValidator } from "../../lib/user-json-schema";
import { fencedBlock } from "../../lib/fenced-block";
import { BudgetExceededError } from "../../usage/budgets";
import { governedProvider } from "../../usage/governed-provider";
import { type LedgerEntry, ledgerInsert, recordUsage } from "../../usage/ledger";
import { addUsage } from "../../usage/model-usage";
import { nanoUsdOf } from "../../usage/money";
import { Pause } from "../outcome";
import { bounded } from "../scope";
import { agentStepConfig } from "./agent-step-config";
import { type AgentJournal, type JournalCall, type JournalRequest, closeRound, journalOf, newJournal, unfinishedCalls } from "./agent-journal";
import type { StepHandler, StepRun } from "./types";

/** How long one `agent` step may work in one drive (a resumed run gets another stretch). */
const STEP_MS = 10 * 60_000;

/**
 * `agent` (DESIGN §6.3): the chat turn's loop inside a run. Each model answer and each tool
 * result is checkpointed (the step's running record holds its journal) before the next, so a run
 * that resumes goes on from the last one and never repeats a finished call; a call cut short by a
 * restart runs again with its idempotency key `<execution>:<step>:<n>`. A call a policy sends to
 * a person parks the run (`waiting`) until every approval of the round is decided or expires.
 */
export const runAgent: StepHandler<"agent"> = async (run, step, scope, done) => {
  const attempt = done?.attempts ?? 1;
  await run.stopIfRevoked(step, scope);
  const prompt = run.evaluate(step, () => asText(run.substitute(step.prompt, scope.context)));
  const journal = (done && journalOf(done.result)) ?? newJournal();
  const startedAt = done?.startedAt ?? new Date();
  // Every write of the step's record goes through this chain, in order: a tool result's save is
  // not awaited (it goes while the next model request is made), and no later write may overtake it.
  let written: Promise<void> = Promise.resolve();
  // Answers' ledger rows not written yet: each goes in the batch of the next checkpoint (the one
  // that keeps the answer), or on its own where none follows.
  const unrecorded: LedgerEntry[] = [];
  const recordLeftovers = () => Promise.all(unrecorded.splice(0).map((entry) => recordUsage(run.ctx, entry)));
  const ledgerRows = () => ({ alongside: unrecorded.splice(0).map((entry) => ledgerInsert(run.ctx, entry)) });
  const save = (status: "running" | "waiting" = "running", resumeAt?: Date): Promise<void> => {
    written = written.then(async () => {
      const state = { status, attempts: attempt, startedAt, result: journal, usage: journal.usage, ...(resumeAt ? { resumeAt } : {}) };
      await run.checkpoint(step, scope, state, ledgerRows());
    });
    return written;
  };
  if (!done) await save();

  const { id: executionId, workflowId, agentId } = run.execution;
  // What earlier drives of the step spent; this drive's provider adds its own.
  const spentBefore = journal.usage;
  const config = await agentStepConfig(run.ctx, step, agentId);
  let provider: ReturnType<typeof governedProvider>;
  try {
    const resolved = timedProvider(await resolveProvider(run.ctx, config.provider ?? null, config.model), journal);
    provider = governedProvider(run.ctx, resolved, {
      executionId,
      workflowId,
      agentId,
      budget: config.budget,
      ledger: (entry) => unrecorded.push(entry),
      // The step is one turn for max_tokens_per_turn: what it spent before a resume still counts.
      turnSpentBefore: { tokens: (journal.usage?.input_tokens ?? 0) + (journal.usage?.output_tokens ?? 0), nanoUsd: nanoUsdOf(journal.usage?.cost_usd ?? 0) },
    });
  } catch (error) {
    if (error instanceof HubError) return run.failStep(step, scope, attempt, error.message, 0, { usage: journal.usage });
    throw error;
  }
  const keyOf = (callId: string) => {
    const call = journal.calls.find((c) => c.id === callId);
    return call ? `${executionId}:${step.id}${scope.index === null ? "" : `:${scope.index}`}:${call.n}` : undefined;
  };
  const tools = timedTools(
    journal,
    turnTools(run.ctx, {
      catalog: config.catalog,
      agent: config.settings,
      source: `workflow:${workflowId}`,
      memory: config.memory && agentId ? { agentId, executionId } : undefined,
      approvals: {
        executionId,
        stepId: step.id,
        agentId,
        ...config.approvals,
        requested: () => undefined,
        // A step test answers at once: a call a policy would hold for a person is refused instead.
        ...(run.trial ? { noAsking: "a step test does not wait for one" } : {}),
      },
      keyOf: (call) => keyOf(call.id),
    }),
  );

  try {
    await run.withHeartbeat(async () => {
      await finishUnfinished(run, journal, tools, save);
    });
    const messages: ChatMessage[] = [{ role: "system", content: config.system }, { role: "user", content: prompt }, ...journal.messages];
    const deadline = AbortSignal.timeout(STEP_MS);
    const outcome = await run.withHeartbeat((signal) =>
      runAgentLoop(
        {
          provider,
          messages,
          offer: tools.offer(messages),
          run: tools.run,
          maxSteps: Math.max(1, config.maxSteps - journal.rounds),
          maxParallel: run.ctx.config.limits.parallelToolCalls,
          stop: signal,
          deadline,
        },
        {
          answered: async (_round, answer) => {
            journal.rounds++;
            journal.usage = addUsage(spentBefore, provider.usage());
            if (answer.toolCalls.length === 0) return;
            const requested = answer.toolCalls.slice(0, 16);
            journal.messages.push({ role: "assistant", content: answer.text, toolCalls: requested });
            for (const call of requested) journal.calls.push({ ...call, n: journal.calls.length + 1, round: journal.rounds });
            // Checkpointed before any call runs: a resumed run never asks the model again for this round.
            await save();
          },
          toolFinished: async (call, result) => {
            record(journal, call.id, result);
            closeRound(journal);
            // Landed before the next answer's save (the chain), not before the next request: a
            // restart meanwhile repeats the call under its key, as one cut short.
            save().catch(() => undefined);
          },
        },
      ),
    );
    await written;
    // A final answer's row goes with the step's last checkpoint, unless a request follows first.
    if (outcome.status !== "completed" || config.outputSchema) await recordLeftovers();
    if (outcome.status === "awaiting_approval") return park(run, journal, outcome.awaiting, save);
    if (outcome.status === "stopped") throw new Error("The step's drive was cut short.");
    if (outcome.status === "max_steps") return run.failStep(step, scope, attempt, outcome.text, tokensOf(journal), { usage: journal.usage });
    const output = config.outputSchema ? await structuredOutput(provider, messages, outcome.text, config.outputSchema) : undefined;
    journal.usage = addUsage(spentBefore, provider.usage());
    if (output && "error" in output) {
      await recordLeftovers();
      return run.failStep(step, scope, attempt, output.error, tokensOf(journal), { usage: journal.usage });
    }
    const result = bounded({
      text: outcome.text,
      ...(output ? { output: output.value } : {}),
      tool_calls: journal.calls.map(presentCall),
      steps: journal.rounds,
      usage: journal.usage,
      model_requests: (journal.requests ?? []).map(presentRequest),
    });
    const final = { status: "succeeded" as const, attempts: attempt, startedAt, result, tokensUsed: tokensOf(journal), usage: journal.usage };
    await run.checkpoint(step, scope, final, ledgerRows());
    run.apply(step, scope, result);
  } catch (error) {
    if (error instanceof Pause) throw error;
    // Nothing may overtake a save still on its way, nor leave an answer out of the ledger.
    await written;
    await recordLeftovers();
    if (error instanceof BudgetExceededError)
      return run.failStep(step, scope, attempt, error.message, tokensOf(journal), { usage: journal.usage, errorCode: "budget_exceeded" });
    if (error instanceof HubError) return run.failStep(step, scope, attempt, error.message, tokensOf(journal), { usage: journal.usage });
    throw error;
  }
};

/** The provider, each answered request noted in the journal (the trace's `chat` spans). */
function timedProvider(provider: ChatProvider, journal: AgentJournal): ChatProvider {
  return {
    ...provider,
    async generate(request) {
      const started = Date.now();
      const answer = await provider.generate(request);
      journal.requests ??= [];
      journal.requests.push({
        model: answer.model,
        started_ms: started,
        ms: Date.now() - started,
        input_tokens: answer.usage.inputTokens,
        output_tokens: answer.usage.outputTokens,
      });
      return answer;
    },
  };
}

/** The turn's tools, each call's start and length noted on its journal entry (the trace's `execute_tool` spans). */
function timedTools(journal: AgentJournal, tools: ReturnType<typeof turnTools>): ReturnType<typeof turnTools> {
  const timed = <T>(callId: string, work: () => Promise<T>): Promise<T> => {
    const entry = journal.calls.find((c) => c.id === callId && !c.outcome);
    const started = Date.now();
    if (entry) entry.started_ms = started;
    return work().finally(() => {
      if (entry) entry.ms = Date.now() - started;
    });
  };
  return {
    ...tools,
    run: (call, hooks) => timed(call.id, () => tools.run(call, hooks)),
    runApproved: (call, approval) => timed(call.id, () => tools.runApproved(call, approval)),
  };
}

const tokensOf = (journal: AgentJournal) => (journal.usage ? journal.usage.input_tokens + journal.usage.output_tokens : 0);

function record(journal: AgentJournal, callId: string, result: ToolOutcome): void {
  const call = journal.calls.find((c) => c.id === callId && !c.outcome);
  if (!call) return;
  if (result.awaiting_approval) {
    call.approval_id = result.awaiting_approval;
    return;
  }
  call.outcome = { success: result.success, content: result.content, error_message: result.error_message };
}

/**
 * The last round's calls that did not end: those a person decided run (approved, once) or are
 * told to the model; those a restart cut short run again with the same idempotency key; those
 * still waiting park the run again.
 */
async function finishUnfinished(run: StepRun, journal: AgentJournal, tools: ReturnType<typeof turnTools>, save: () => Promise<void>): Promise<void> {
  const open = unfinishedCalls(journal);
  if (open.length === 0) return;
  const decisions = new Map<string, ApprovalView>(
    (
      await approvalsByIds(
        run.ctx,
        open.flatMap((c) => (c.approval_id ? [c.approval_id] : [])),
      )
    ).map((a) => [a.id, a]),
  );
  const pending = [...decisions.values()].filter((approval) => approval.status === "pending");
  if (pending.length > 0)
    return park(
      run,
      journal,
      pending.map((a) => a.id),
      save,
    );
  for (const call of open) {
    const approval = call.approval_id ? decisions.get(call.approval_id) : undefined;
    if (approval?.status === "approved" && call.started) {
      record(journal, call.id, refusal("Not run again: the run restarted while this approved call ran, so it may have run already."));
    } else if (approval) {
      if (approval.status === "approved") {
        call.started = true;
        await save();
      }
      record(journal, call.id, await tools.runApproved({ id: call.id, name: call.name, arguments: approval.arguments }, approval));
    } else {
      record(journal, call.id, await tools.run(call, { signal: AbortSignal.timeout(120_000), onProgress: () => undefined }));
      if (!journal.calls.find((c) => c.id === call.id)?.outcome) return park(run, journal, [journal.calls.find((c) => c.id === call.id)!.approval_id!], save);
    }
  }
  journal.waiting = undefined;
  closeRound(journal);
  await save();
}

/** Parks the run until its approvals are decided (woken at once by a decision) or the first expires. */
async function park(
  run: StepRun,
  journal: AgentJournal,
  waiting: string[],
  save: (status?: "running" | "waiting", resumeAt?: Date) => Promise<void>,
): Promise<never> {
  journal.waiting = waiting;
  const approvals = await approvalsByIds(run.ctx, waiting);
  const resumeAt = new Date(Math.min(...approvals.map((a) => Date.parse(a.expires_at)), Date.now() + 7 * 86_400_000));
  await save("waiting", resumeAt);
  return run.pause(resumeAt.getTime(), "waiting");
}

function presentCall(call: JournalCall) {
  const outcome = call.outcome;
  return {
    name: call.name,
    arguments: call.arguments,
    success: outcome?.success ?? false,
    ...(outcome?.success ? { result: parsed(outcome.content) } : { error: outcome?.error_message ?? "Not run." }),
    ...(call.started_ms !== undefined ? { started_at: new Date(call.started_ms).toISOString(), duration_ms: call.ms ?? 0 } : {}),
  };
}

const presentRequest = (request: JournalRequest) => ({
  model: request.model,
  started_at: new Date(request.started_ms).toISOString(),
  duration_ms: request.ms,
  input_tokens: request.input_tokens,
  output_tokens: request.output_tokens,
});

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/**
 * The final answer as structured output: JSON (bare or fenced) that `schema` accepts; otherwise
 * one repair request telling the model what was wrong, then the step fails.
 */
async function structuredOutput(
  provider: ReturnType<typeof governedProvider>,
  messages: ChatMessage[],
  text: string,
  schema: Record<string, unknown>,
): Promise<{ value: unknown } | { error: string }> {
  const validator = new UserSchemaValidator(schema);
  const check = (answer: string): { value: unknown } | { problem: string } => {
    let value: unknown;
    try {
      value = JSON.parse(fencedBlock(answer) ?? answer);
    } catch {
      return { problem: "The answer is not JSON." };
    }
    const result = validator.validate(value);
    return result.valid
      ? { value }
      : {
          problem: result.errors
            .slice(0, 5)
            .map((e) => `${e.instanceLocation}: ${e.error}`)
            .join("; "),
        };
  };
  const first = check(text);
  if ("value" in first) return first;
  const repair = await provider.generate({
    messages: [
      ...messages,
      { role: "assistant", content: text },
      { role: "user", content: `Answer again with only JSON matching this schema: ${JSON.stringify(schema)}. What was wrong: ${first.problem}` },
    ],
    tools: [],
    signal: AbortSignal.timeout(120_000),
  });
  const second = check(repair.text);
  return "value" in second ? second : { error: `The final answer did not match output_schema after one repair: ${second.problem}` };
}

function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
