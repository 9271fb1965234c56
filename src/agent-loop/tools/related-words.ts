/**
 * Words of requests that tool texts say otherwise, added to a query at a lower weight: verbs
 * people use for an action ("tweet" for posting on X, "calculate" for evaluating arithmetic) and
 * a few everyday names of what tools work on. Kept small on purpose: each entry must hold for
 * any catalog, not for one tool.
 */
const RELATED: Record<string, string> = {
  tweet: "post",
  tweets: "post",
  calculate: "evaluate arithmetic",
  compute: "evaluate arithmetic",
  remember: "memory store",
  recall: "memory",
  // Tool names run these together ("datetime", "timezone"), which no word split can undo.
  time: "datetime timezone",
  date: "datetime",
  zone: "timezone",
  text: "sms",
  texts: "sms",
  sms: "text",
  meeting: "event",
  meetings: "events",
  ticket: "issue",
  tickets: "issues",
  bug: "issue",
  bugs: "issues",
  error: "issue",
  errors: "issues",
  signature: "sign",
  sign: "signature",
  subscriber: "member contact",
  subscribers: "members contacts",
  customer: "contact",
  customers: "contacts",
  invoice: "bill",
  payment: "charge",
  payments: "charges",
};

/** How much a related word counts against the word the request used. */
export const RELATED_WEIGHT = 0.5;

/** The related words of one lower-case word, if any. */
export function relatedWords(word: string): string[] {
  const related = RELATED[word];
  return related ? related.split(" ") : [];
}
