import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

/**
 * One object per deployed agent: it will hold the agent's state, schedule and monitoring.
 * Declared now (SQLite-backed, as the Agents SDK needs) so the binding exists from the start;
 * the agents feature fills it in.
 */
export class AutomationAgent extends DurableObject<Env> {}
