import { z } from "@hono/zod-openapi";
import { ToolError, defineBuiltin } from "../types";

const MAX_SECONDS = 30;

export const waitTool = defineBuiltin({
  name: "wait",
  effect: "read",
  title: "Wait",
  description: `Pauses for up to ${MAX_SECONDS} seconds, reporting progress each second; cancelled when the caller goes away. For longer pauses use a workflow delay step, which holds no worker.`,
  input: z.object({ seconds: z.number().min(0).max(MAX_SECONDS) }),
  async run(ctx, args) {
    const started = Date.now();
    const whole = Math.ceil(args.seconds);
    for (let second = 1; second <= whole; second++) {
      const remaining = args.seconds * 1000 - (Date.now() - started);
      await sleep(Math.min(1000, Math.max(0, remaining)), ctx.signal);
      ctx.progress({ progress: Math.min(second, args.seconds), total: args.seconds, message: `waited ${Math.min(second, args.seconds)} s` });
    }
    return { waited_seconds: (Date.now() - started) / 1000 };
  },
});

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ToolError("Cancelled."));
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ToolError("Cancelled."));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
