import type { ToolInfo } from "../../tools/types";
import { nameWords } from "./tool-fields";
import { wordsOf } from "./words";

/**
 * What a tool does to its object, in five kinds. Catalogs at scale hold the same objects many
 * times over with different verbs (a server's create_issue, get_issue, update_issue,
 * delete_issue), and a request names its object more often than the tool's own verb ("open a
 * GitHub issue", "post on LinkedIn"): word overlap alone cannot tell those tools apart.
 */
export type Action = "create" | "send" | "read" | "update" | "delete";

/** The verbs tool names start their action with (after any product prefix), and what they do. */
const TOOL_VERBS: Record<string, readonly Action[]> = {
  create: ["create"],
  add: ["create"],
  insert: ["create"],
  upload: ["create"],
  log: ["create"],
  register: ["create"],
  record: ["create"],
  track: ["create"],
  identify: ["create", "update"],
  upsert: ["create", "update"],
  sync: ["create", "update"],
  subscribe: ["create", "update"],
  send: ["send"],
  publish: ["send", "create"],
  reply: ["send"],
  share: ["send"],
  schedule: ["send", "create"],
  trigger: ["create", "send"],
  list: ["read"],
  get: ["read"],
  read: ["read"],
  search: ["read"],
  find: ["read"],
  query: ["read"],
  describe: ["read"],
  download: ["read"],
  export: ["read"],
  lookup: ["read"],
  update: ["update"],
  set: ["update"],
  change: ["update"],
  edit: ["update"],
  modify: ["update"],
  move: ["update"],
  mark: ["update"],
  assign: ["update"],
  transition: ["update"],
  tag: ["update"],
  label: ["update"],
  resolve: ["update"],
  acknowledge: ["update"],
  merge: ["update"],
  pause: ["update"],
  mute: ["update"],
  scale: ["update"],
  promote: ["update"],
  apply: ["update"],
  moderate: ["update"],
  retry: ["update"],
  rerun: ["update"],
  rollout: ["update"],
  rollback: ["update", "delete"],
  delete: ["delete"],
  remove: ["delete"],
  cancel: ["delete"],
  void: ["delete"],
  archive: ["delete"],
  unsubscribe: ["delete"],
};

/** Verbs (and their usual forms) in requests, and the kinds of action they ask for. Nouns that are also verbs ("post", "list") count for both readings. */
const REQUEST_VERBS: Record<string, readonly Action[]> = {};
function request(actions: readonly Action[], words: string): void {
  for (const word of words.split(" ")) REQUEST_VERBS[word] = [...(REQUEST_VERBS[word] ?? []), ...actions];
}
request(["create"], "create creates created creating add adds added adding make makes making open opens opening draft drafts write writes");
request(["create"], "register book insert upload uploads uploaded put log logs logged record track tracks start starts setup schedule");
request(["create", "update"], "upsert sync subscribe subscribes subscribed enroll");
request(["send", "create"], "post posts posted posting publish publishes publishing tweet tweets share shares sharing announce");
request(["send"], "send sends sending sent email emails emailed text texts message messages notify notifies tell reply replies dm ping forward");
request(["read"], "list lists show shows see get gets read reads look looks lookup fetch view check find finds which what who how many search query");
request(["read"], "latest recent upcoming report count download export");
request(["update"], "update updates updated change changes changed edit edits modify move moves mark marks rename assign set tag label");
request(["update"], "resolve acknowledge ack merge pause resume enable disable scale restart promote transition approve close reopen");
request(["delete"], "delete deletes deleted remove removes removed erase drop cancel cancels void archive unsubscribe revoke trash destroy");

/**
 * The verbs tool names almost always use for making and sending: a request's "open" or "draft"
 * also looks for "create", its "post" for "send". Reading and changing have no such verb (list,
 * get, search; update, move, assign, transition), so none is added for them.
 */
export const ACTION_VERBS: Record<Action, readonly string[]> = {
  create: ["create"],
  send: ["send"],
  read: [],
  update: [],
  delete: ["delete"],
};

/** Two-word verbs read as one ("set up a meeting" creates one; "set" alone changes something). */
export function joinPhrasalVerbs(words: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] === "set" && words[i + 1] === "up") {
      joined.push("setup");
      i++;
    } else joined.push(words[i]!);
  }
  return joined;
}

/** Whether tool names use this word as their verb. */
export function isToolVerb(word: string): boolean {
  return Object.hasOwn(TOOL_VERBS, word);
}

/** The kinds of action one word of a request asks for. */
export function actionsOfWord(word: string): readonly Action[] {
  return REQUEST_VERBS[word] ?? [];
}

/** What a tool's name says it does: the first known verb of its name, or nothing for a name without one. */
export function toolActions(tool: ToolInfo): readonly Action[] {
  for (const word of wordsOf(nameWords(tool), true)) {
    const actions = TOOL_VERBS[word];
    if (actions) return actions;
  }
  return [];
}

/** The kinds of action a text asks for, from its verbs. */
export function requestedActions(words: readonly string[]): Set<Action> {
  const actions = new Set<Action>();
  for (const word of words) for (const action of REQUEST_VERBS[word] ?? []) actions.add(action);
  return actions;
}

/**
 * How much a tool's score keeps when the request asks for other kinds of action than the tool's:
 * enough to let a strong match on the object still win, and to keep a delete tool below the
 * create tool of the same object when nobody asked to delete anything.
 */
export const OTHER_ACTION_FACTOR = 0.7;
