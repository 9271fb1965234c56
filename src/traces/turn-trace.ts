import type { LoopEvents } from "../agent-loop/types";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { loggableError } from "../lib/safe-log";
import { ProviderError, type GenerateResult } from "../llm/types";
import { exportSpans } from "./otlp";
import { ATTR, MAX_SPANS_PER_TRACE, SPAN_KIND, type Span, newSpanId, newTraceId } from "./spans";
import { storeSpans } from "./store";

/** A tool call as the turn's driver tells it (its own events, which run decided calls too). */
interface ToolStart {
  tool_call_id: string;
  name: string;
}
interface ToolEnd extends ToolStart {
  success: boolean;
}

/** The stored answer a turn ended with, as far as its trace reads it. */
interface TurnAnswer {
  id: number;
  status: string;
  provider: string | null;
  model: string | null;
}

/**
 * The trace of one chat turn, built from the loop's events: a root `invoke_agent` span, a
 * `chat <model>` span per model request (ended by its answer, with the model and the tokens the
 * provider reported, or by the failure) and an `execute_tool <tool>` span per call, children of
 * the root. `save` stores it against the answer the turn stored, then sends it to the collector
 * in the background. Recording never throws into the turn.
 */
export class TurnTrace {
  private readonly traceId = newTraceId();
  private readonly rootId = newSpanId();
  private readonly startMs = Date.now();
  private readonly children: Span[] = [];
  private readonly chats = new Map<number, Span>();
  private readonly tools = new Map<string, Span>();
  private provider: { id: string; model: string } | null = null;
  private agentId: string | null = null;
  private failure: string | null = null;
  private dropped = 0;

  constructor(private readonly conversationId: number) {}

  /** The loop events that time each model request, for the provider the turn asks (and the agent it answers as). */
  modelEvents(provider: { id: string; model: string }, agentId: string | null): Pick<LoopEvents, "requestStarted" | "answered"> {
    this.provider = { id: provider.id, model: provider.model };
    this.agentId = agentId;
    return {
      requestStarted: (round) => {
        const span = this.child(`chat ${provider.model}`, SPAN_KIND.client, {
          [ATTR.operation]: "chat",
          [ATTR.provider]: provider.id,
          [ATTR.requestModel]: provider.model,
          "hub.round": round,
        });
        if (span) this.chats.set(round, span);
      },
      answered: (round, answer) => this.answered(round, answer),
    };
  }

  /** The driver's events with the tool calls timed: the loop's calls and those a decision let run. */
  watch<
    E extends { toolStarted(event: ToolStart & { arguments: Record<string, unknown> }): void; toolFinished?(event: ToolEnd & { duration_ms: number }): void },
  >(events: E): E {
    const watched: E = {
      ...events,
      toolStarted: (event: ToolStart & { arguments: Record<string, unknown> }) => {
        const span = this.child(`execute_tool ${event.name}`, SPAN_KIND.internal, {
          [ATTR.operation]: "execute_tool",
          [ATTR.toolName]: event.name,
          [ATTR.toolCallId]: event.tool_call_id,
          [ATTR.toolType]: "function",
        });
        if (span) this.tools.set(event.tool_call_id, span);
        events.toolStarted(event);
      },
      toolFinished: (event: ToolEnd & { duration_ms: number }) => {
        const span = this.tools.get(event.tool_call_id);
        if (span) {
          this.tools.delete(event.tool_call_id);
          span.endMs = Date.now();
          span.status = event.success ? "ok" : "error";
          if (!event.success) span.attributes[ATTR.errorType] = "tool_error";
        }
        events.toolFinished?.(event);
      },
    };
    return watched;
  }

  /** Why the turn failed, as a low-cardinality error type for the spans it leaves open. */
  failed(error: unknown): void {
    this.failure =
      error instanceof HubError
        ? error.code
        : error instanceof ProviderError
          ? "provider_error"
          : error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")
            ? "timeout"
            : "_OTHER";
  }

  /**
   * Ends the trace with the answer the turn stored, writes it (one batch; a failure is only
   * logged) and sends it to the collector, if one is set, without waiting for it.
   */
  async save(ctx: ServiceContext, answer: TurnAnswer): Promise<void> {
    try {
      const spans = this.finish(answer);
      const stored = await storeSpans(ctx, spans, { userId: ctx.workspace.id, conversationId: this.conversationId, messageId: answer.id });
      // Not tied to the turn: a collector that is slow or down must not hold the answer back.
      if (stored && ctx.config.otel.endpoint) void exportSpans(ctx.config, spans).catch(() => undefined);
    } catch (error) {
      console.error(JSON.stringify({ level: "error", message: "trace not recorded", conversation_id: this.conversationId, error: loggableError(error) }));
    }
  }

  private answered(round: number, answer: GenerateResult): void {
    const span = this.chats.get(round);
    if (!span) return;
    this.chats.delete(round);
    span.endMs = Date.now();
    span.status = "ok";
    span.name = `chat ${answer.model || span.attributes[ATTR.requestModel]}`;
    Object.assign(span.attributes, {
      [ATTR.responseModel]: answer.model,
      [ATTR.inputTokens]: answer.usage.inputTokens,
      [ATTR.outputTokens]: answer.usage.outputTokens,
    });
  }

  private child(name: string, kind: Span["kind"], attributes: Span["attributes"]): Span | undefined {
    if (this.children.length >= MAX_SPANS_PER_TRACE - 1) {
      this.dropped++;
      return undefined;
    }
    const now = Date.now();
    const span: Span = {
      traceId: this.traceId,
      spanId: newSpanId(),
      parentSpanId: this.rootId,
      name,
      kind,
      startMs: now,
      endMs: now,
      status: "unset",
      attributes,
    };
    this.children.push(span);
    return span;
  }

  private finish(answer: TurnAnswer): Span[] {
    const endMs = Date.now();
    const failed = answer.status === "error" || answer.status === "budget_exceeded";
    const errorType = answer.status === "budget_exceeded" ? "budget_exceeded" : (this.failure ?? "_OTHER");
    // A request that never answered ended with the turn: stopped, or failed.
    for (const span of this.chats.values()) {
      span.endMs = endMs;
      span.status = answer.status === "stopped" ? "unset" : "error";
      span.attributes[ATTR.errorType] = answer.status === "stopped" ? "cancelled" : errorType;
    }
    // A call still open is one a policy held for a person: it runs, if approved, in the next part.
    for (const span of this.tools.values()) {
      span.endMs = endMs;
      if (answer.status === "awaiting_approval") span.attributes["hub.tool.awaiting_approval"] = true;
      else if (answer.status === "stopped") span.attributes[ATTR.errorType] = "cancelled";
      else {
        span.status = "error";
        span.attributes[ATTR.errorType] = errorType;
      }
    }
    const answeredChats = this.children.filter((span) => span.attributes[ATTR.operation] === "chat");
    const sum = (key: string) => answeredChats.reduce((total, span) => total + (Number(span.attributes[key]) || 0), 0);
    const root: Span = {
      traceId: this.traceId,
      spanId: this.rootId,
      parentSpanId: null,
      name: this.agentId ? `invoke_agent ${this.agentId}` : "invoke_agent",
      kind: SPAN_KIND.internal,
      startMs: this.startMs,
      endMs,
      status: failed ? "error" : answer.status === "completed" ? "ok" : "unset",
      attributes: {
        [ATTR.operation]: "invoke_agent",
        ...(this.provider
          ? { [ATTR.provider]: this.provider.id, [ATTR.requestModel]: this.provider.model }
          : answer.provider
            ? { [ATTR.provider]: answer.provider }
            : {}),
        ...(answer.model ? { [ATTR.responseModel]: answer.model } : {}),
        ...(this.agentId ? { [ATTR.agentId]: this.agentId } : {}),
        [ATTR.conversationId]: String(this.conversationId),
        [ATTR.inputTokens]: sum(ATTR.inputTokens),
        [ATTR.outputTokens]: sum(ATTR.outputTokens),
        "hub.message.id": answer.id,
        "hub.turn.status": answer.status,
        ...(failed ? { [ATTR.errorType]: errorType } : {}),
        ...(this.dropped ? { "hub.trace.dropped_spans": this.dropped } : {}),
      },
    };
    return [root, ...this.children];
  }
}
