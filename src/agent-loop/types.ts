// The agent loop's contract with whoever drives it: a chat turn (the conversation's Durable Object
// stores, streams and replays what the loop produces) or, later, an `agent` step of a run (which
// checkpoints it). The loop itself stores nothing.

import type { ChatMessage, ChatProvider, GenerateResult, ToolCallRequest, ToolSpec } from "../llm/types";
import type { ProgressUpdate } from "../tools/types";

/** What one tool call came to, as the model hears it (`content`) and as it is recorded. */
export interface ToolOutcome {
  content: string;
  success: boolean;
  error_message: string | null;
  duration_ms: number;
  /** The audit log's call id, for catalog tools. */
  call_id: string | null;
  /**
   * Not run yet: a policy sent it to a person, and this approval decides it. The loop ends after
   * the round (`awaiting_approval`); the driver runs it once decided.
   */
  awaiting_approval?: string;
}

/** One tool call of the loop, with the round (1-based model request) that asked for it. */
export interface LoopCall extends ToolCallRequest {
  round: number;
  success: boolean;
  error_message: string | null;
  duration_ms: number;
  call_id: string | null;
  /** The approval it waits on (see ToolOutcome.awaiting_approval). */
  approval_id?: string;
}

/** Runs one call the model asked for; never throws for what the tool does (a failure is an outcome). */
export type CallRunner = (call: ToolCallRequest, hooks: { signal: AbortSignal; onProgress: (progress: ProgressUpdate) => void }) => Promise<ToolOutcome>;

/** Which tool definitions each model request carries, and what the model learns of tools on the way. */
export interface ToolOffer {
  /** The definitions for the next model request. */
  next(): ToolSpec[];
  /** A tool the model called, or one a search returned: offered in the next request of the turn. */
  note(names: string[]): void;
}

export interface LoopInput {
  provider: ChatProvider;
  /** The system prompt and the history to replay, the new user message last. */
  messages: ChatMessage[];
  offer: ToolOffer;
  run: CallRunner;
  /** At most this many model requests (agent_config.max_steps). */
  maxSteps: number;
  /** At most this many tool calls running at once (MAX_PARALLEL_TOOL_CALLS). */
  maxParallel: number;
  /** Stops the turn: the model request in flight is aborted and no tool call starts after it. */
  stop: AbortSignal;
  /** The whole turn's deadline: tool calls still running are aborted at it. */
  deadline: AbortSignal;
  /**
   * Where the loop records each call as it is released (the driver's own array, so the calls of a
   * turn that fails later are still known and stored with its error).
   */
  calls?: LoopCall[];
}

/** What the loop tells its driver as it goes; the driver stores and streams it. */
export interface LoopEvents {
  /** A model request is about to be made (round is 1-based); `answered` or a thrown failure ends it. */
  requestStarted?(round: number): void;
  /** A piece of the answer's text as the model produces it. */
  delta?(round: number, text: string): void;
  /** A model answer, before any of its tool calls start (a run checkpoints it here). */
  answered?(round: number, answer: GenerateResult): void | Promise<void>;
  toolStarted?(event: { tool_call_id: string; name: string; arguments: Record<string, unknown> }): void;
  toolProgress?(event: { tool_call_id: string; name: string; progress: ProgressUpdate }): void;
  /** A call's end, as soon as it ends (calls of one answer end in any order). */
  toolEnded?(call: LoopCall, outcome: ToolOutcome): void;
  /**
   * A call's end, in the model's order: each once it and every call before it in the answer have
   * ended, so what the driver stores reads in the order the model asked.
   */
  toolFinished?(call: LoopCall, outcome: ToolOutcome): void | Promise<void>;
}

export interface LoopOutcome {
  /**
   * completed: the model answered; stopped: stopped by the person; max_steps: out of model
   * requests; awaiting_approval: a call of the last round waits for a person (`awaiting`).
   */
  status: "completed" | "stopped" | "max_steps" | "awaiting_approval";
  /** The answer (for a stop, the text produced so far in the last round). */
  text: string;
  calls: LoopCall[];
  usage: { inputTokens: number; outputTokens: number };
  model: string | null;
  rounds: number;
  /** The approvals the last round's held calls wait on, in the model's order. */
  awaiting: string[];
}
