import type { JsonSchema } from "../tools/types";

/**
 * What some of the hub's own platform tools return on every success, and the later arguments
 * that take it: tool → {argument name → path in its result}. Tools do not declare their output
 * shapes, and placeholders are strict at run time (a wrong path fails the run), so the offline
 * builder links only what is listed here, where the path is known to exist.
 */
const KNOWN_RESULTS: Record<string, Record<string, string>> = {
  hubspot_create_contact: { contact_id: "id" },
  hubspot_create_deal: { deal_id: "id" },
  hubspot_create_company: { company_id: "id" },
  slack_send_message: { thread_ts: "ts", timestamp: "ts", channel: "channel" },
};

/** "…reply in its thread", "add a note to it", "and then use it": the sentence is about an earlier step's object. */
const REFERS_BACK = /\b(it|its|that one|the same one|reply|replies|thread)\b/i;

/**
 * The links earlier steps of an offline build offer to later ones. A later step's required
 * argument that an earlier step's known result gives (a contact's `contact_id` after it was
 * created) is linked; an optional one only when its sentence refers back to that object.
 * The latest earlier step that gives an argument is the one linked.
 */
export class EarlierResults {
  private readonly offers = new Map<string, string>();

  /** Records a step at the top level of the workflow (a step inside a loop is not in scope after it). */
  add(step: { id: string; tool: string }): void {
    for (const [argument, path] of Object.entries(KNOWN_RESULTS[step.tool] ?? {})) {
      this.offers.set(argument, `{{steps.${step.id}.result.${path}}}`);
    }
  }

  /**
   * The arguments with the links filled in where the sentence left them out: each required
   * argument in `missing` that an earlier result gives, and, when the sentence refers back, the
   * optional ones too. Returns the arguments still missing (they become variables).
   */
  link(args: Record<string, unknown>, missing: string[], schema: JsonSchema, sentence: string): string[] {
    const stillMissing = missing.filter((name) => {
      const link = this.offers.get(name);
      if (link) args[name] = link;
      return !link;
    });
    if (REFERS_BACK.test(sentence)) {
      for (const name of Object.keys((schema.properties ?? {}) as Record<string, unknown>)) {
        const link = this.offers.get(name);
        if (link && args[name] === undefined) args[name] = link;
      }
    }
    return stillMissing;
  }
}
