import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

/**
 * One object per conversation: it will own the message history, serialise turns and hold the
 * live streams. Declared now so the binding and its storage migration exist from the start;
 * the conversations feature fills it in.
 */
export class ConversationObject extends DurableObject<Env> {}
