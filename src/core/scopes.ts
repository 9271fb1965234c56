/** Every scope, with the sentence the consent screen and the docs show for it. */
export const SCOPES = {
  "data:read": "Read your conversations, workflows, agents, connections and account.",
  "data:write": "Create, change and delete your conversations, workflows, agents and keys.",
  "workflow:execute": "Run your workflows, agents and tools, and send messages to your agents.",
  "connections:write": "Create, change, test and delete your platform connections and their credentials.",
} as const;

export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

export const formatScopes = (scopes: readonly Scope[]) => ALL_SCOPES.filter((s) => scopes.includes(s)).join(" ");

/** Reads a stored scope string, ignoring anything no longer known. */
export const readScopes = (stored: string): Scope[] => stored.split(" ").filter(isScope);

export const isSubset = (wanted: readonly string[], allowed: readonly string[]) => wanted.every((s) => allowed.includes(s));
