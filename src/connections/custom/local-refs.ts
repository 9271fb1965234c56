// The local `$ref`s of an OpenAPI document (`#/components/...`), resolved in time that grows with
// the document's size. This replaces @scalar/openapi-parser's `dereference`, which is not safe on a
// hostile document: it follows a reference chain again from every link of it (a 4,000-link chain
// of schemas, 178 KB, held the isolate for minutes; the work grows with the square of the chain),
// copies a target's keys into every reference to it (many references to one large map multiply),
// and removes duplicate errors by comparing each with all before it. Measuring those costs before
// calling it would mean resolving the references anyway, so they are resolved here once each:
//
// - each reference object is followed once (memoized), chains iteratively, so neither time nor
//   the stack grows with a chain's length;
// - a reference without other keys becomes its target, shared: a schema used in many places is
//   one object, and a recursive one a cycle (input-schema.ts copies those with its own bounds);
// - keys beside `$ref` (a description, OpenAPI 3.1's summary, JSON Schema keywords) win over the
//   target's, which fill the rest, as the library did; those copies are counted, and a document
//   that would copy more than MAX_MERGED_KEYS is refused;
// - examples, defaults, enums and `x-` extensions are data: a `$ref` inside them is left alone;
// - nothing is fetched: a reference to another file or URL is refused, as is one that points
//   nowhere or only to references back to itself. Pointers are read on the document as written.

import { HubError } from "../../core/errors";

type Obj = Record<string, unknown>;

/** Keys copied from targets into references that carry keys of their own, over the whole document. */
export const MAX_MERGED_KEYS = 200_000;

/** Values that are data, never references (`x-` extensions too). */
const LITERAL = new Set(["example", "examples", "default", "enum", "const", "mapping", "scopes"]);
/** Objects whose keys are names chosen by the author (a property may be called `example` or `default`). */
const NAMED = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "schemas",
  "responses",
  "parameters",
  "requestBodies",
  "headers",
  "securitySchemes",
  "links",
  "callbacks",
  "pathItems",
  "paths",
  "webhooks",
  "content",
  "encoding",
  "variables",
]);
/** Named maps that also take `x-` extensions (OpenAPI's Paths and Responses objects). */
const EXTENSIBLE = new Set(["paths", "responses", "webhooks"]);

/** How an object's keys are read: as keywords, as names, or as names beside `x-` extensions. */
const Mode = { Keywords: 0, Names: 1, ExtensibleNames: 2 } as const;
type Mode = (typeof Mode)[keyof typeof Mode];

interface Pending {
  source: Obj | unknown[];
  target: Obj | unknown[];
  mode: Mode;
  parent: Pending | undefined;
  key: string;
}

const isObject = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);
const isReference = (value: unknown): value is Obj & { $ref: string } => isObject(value) && typeof value.$ref === "string";

/** Sets a key, `__proto__` included (assigning that one would change the object's prototype). */
function put(target: Obj, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

const refused = (message: string, field = "openapi") =>
  new HubError("validation_failed", `The document's references cannot be resolved: ${message}`, {
    errors: [{ location: "body", field, message: message.slice(0, 300) }],
  });

/** What resolving cost: objects filled, keys read, pointer steps walked and keys merged (for tests). */
export interface ResolutionMeter {
  steps: number;
}

/** The document with its local references resolved (a new graph: `document` is not changed). */
export function resolveLocalRefs(document: Obj, meter: ResolutionMeter = { steps: 0 }): Obj {
  return new Resolver(document, meter).run();
}

class Resolver {
  /** Each reference object's resolved value (its target's, merged with its own keys). */
  private readonly references = new Map<Obj, unknown>();
  /** Each object's copy in the result, so shared targets stay shared and cycles close. */
  private readonly copies = new Map<object, Obj | unknown[]>();
  private readonly pending: Pending[] = [];
  private merged = 0;

  constructor(
    private readonly document: Obj,
    private readonly meter: ResolutionMeter,
  ) {}

  run(): Obj {
    const root: Obj = {};
    this.copies.set(this.document, root);
    this.pending.push({ source: this.document, target: root, mode: Mode.Keywords, parent: undefined, key: "" });
    // Every object is filled once, from this list rather than by recursion: depth costs no stack.
    for (let next = this.pending.pop(); next; next = this.pending.pop()) this.fill(next);
    return root;
  }

  private fill(entry: Pending): void {
    const { source, target, mode } = entry;
    this.meter.steps++;
    if (Array.isArray(source)) {
      this.meter.steps += source.length;
      const list = target as unknown[];
      for (let i = 0; i < source.length; i++) list.push(this.copyOf(source[i], Mode.Keywords, entry, String(i)));
      return;
    }
    const keys = Object.keys(source);
    this.meter.steps += keys.length;
    for (const key of keys) {
      const value = source[key];
      const literal = mode === Mode.Keywords ? LITERAL.has(key) || key.startsWith("x-") : mode === Mode.ExtensibleNames && key.startsWith("x-");
      if (literal || typeof value !== "object" || value === null) {
        put(target as Obj, key, value);
        continue;
      }
      const named = mode === Mode.Keywords && NAMED.has(key) && isObject(value);
      const childMode = named ? (EXTENSIBLE.has(key) ? Mode.ExtensibleNames : Mode.Names) : Mode.Keywords;
      put(target as Obj, key, this.copyOf(value, childMode, entry, key));
    }
  }

  /** The result's copy of `value` (allocated now, filled later), a reference replaced by what it resolves to. */
  private copyOf(value: unknown, mode: Mode, parent: Pending, key: string): unknown {
    if (typeof value !== "object" || value === null) return value;
    const source = mode === Mode.Keywords && isReference(value) ? this.resolve(value, parent, key) : value;
    if (typeof source !== "object" || source === null) return source;
    const object = source as Obj | unknown[];
    const known = this.copies.get(object);
    if (known) return known;
    const target: Obj | unknown[] = Array.isArray(object) ? [] : {};
    this.copies.set(object, target);
    this.pending.push({ source: object, target, mode, parent, key });
    return target;
  }

  /**
   * What a reference stands for: the end of its chain of references (each followed once, memoized),
   * merged on the way back with the keys each link carries beside its `$ref`.
   */
  private resolve(reference: Obj & { $ref: string }, parent: Pending, key: string): unknown {
    if (this.references.has(reference)) return this.references.get(reference);
    const chain: (Obj & { $ref: string })[] = [];
    const onChain = new Set<Obj>();
    let current = reference;
    let resolved: unknown;
    for (;;) {
      chain.push(current);
      onChain.add(current);
      const target = this.target(current.$ref, parent, key);
      if (!isReference(target)) {
        resolved = target;
        break;
      }
      if (this.references.has(target)) {
        resolved = this.references.get(target);
        break;
      }
      if (onChain.has(target)) throw refused(`${current.$ref.slice(0, 200)} only leads back to itself.`, fieldOf(parent, key));
      current = target;
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      resolved = this.merge(chain[i]!, resolved);
      this.references.set(chain[i]!, resolved);
    }
    return resolved;
  }

  /** A reference's own keys over its target's; the target itself when it has none. */
  private merge(reference: Obj, target: unknown): unknown {
    const own = Object.keys(reference);
    if (own.length === 1 || !isObject(target)) return target;
    const theirs = Object.keys(target);
    this.merged += own.length + theirs.length;
    this.meter.steps += own.length + theirs.length;
    if (this.merged > MAX_MERGED_KEYS)
      throw new HubError("validation_failed", "The document's references carry too many keys of their own to merge with their targets.", {
        errors: [{ location: "body", field: "openapi", message: `References would copy more than ${MAX_MERGED_KEYS} keys from their targets.` }],
      });
    const out: Obj = {};
    for (const name of own) if (name !== "$ref") put(out, name, reference[name]);
    for (const name of theirs) if (!Object.hasOwn(out, name)) put(out, name, target[name]);
    return out;
  }

  /** The value a local JSON pointer (`#/components/schemas/Pet`, RFC 6901 in a URI fragment) names in the document as written. */
  private target(pointer: string, parent: Pending, key: string): unknown {
    if (pointer === "#") return this.document;
    if (!pointer.startsWith("#/")) {
      const why = pointer.startsWith("#") ? "only JSON pointers (#/…) are resolved" : "references to other files or URLs are not followed";
      throw refused(`${pointer.slice(0, 200)}: ${why}.`, fieldOf(parent, key));
    }
    const segments = pointer.slice(2).split("/");
    this.meter.steps += segments.length;
    let node: unknown = this.document;
    for (const segment of segments) {
      const name = segmentName(segment);
      if (name === undefined) throw refused(`${pointer.slice(0, 200)} is not a valid pointer.`, fieldOf(parent, key));
      if (Array.isArray(node) && /^(0|[1-9][0-9]{0,8})$/.test(name) && Number(name) < node.length) node = node[Number(name)];
      else if (isObject(node) && Object.hasOwn(node, name)) node = node[name];
      else throw refused(`${pointer.slice(0, 200)} points to nothing in the document.`, fieldOf(parent, key));
    }
    return node;
  }
}

/** A pointer segment as the key it names: percent-decoded, then `~1` and `~0` unescaped (RFC 6901 §3, §6); undefined if malformed. */
function segmentName(segment: string): string | undefined {
  let name = segment;
  if (name.includes("%")) {
    try {
      name = decodeURIComponent(name);
    } catch {
      return undefined;
    }
  }
  return name.includes("~") ? name.replaceAll("~1", "/").replaceAll("~0", "~") : name;
}

/** Where a reference sits, as a field of the request body (`openapi.paths./pet.put.requestBody…`), its last 30 steps. */
function fieldOf(parent: Pending, key: string): string {
  const steps = [key];
  for (let entry: Pending | undefined = parent; entry?.parent && steps.length < 30; entry = entry.parent) steps.push(entry.key);
  return ["openapi", ...steps.reverse()].join(".");
}
