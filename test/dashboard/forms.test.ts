import { describe, expect, it } from "vitest";
import { FormFields } from "../../src/dashboard/forms/fields";
import type { FormField } from "../../src/dashboard/forms/form-field";
import { initialValues, valuesOf } from "../../src/dashboard/forms/form-values";
import { placeErrors } from "../../src/dashboard/forms/place-errors";
import { readForm } from "../../src/dashboard/forms/read-form";
import { type SchemaFormOptions, labelOf, schemaFields } from "../../src/dashboard/forms/schema-fields";

/** As a platform's config is shown: settings in words, trimmed, secrets kept out of the page. */
const SETTINGS: SchemaFormOptions = { prefix: "config", ids: "name", labels: "words", trim: true, pairs: true, secrets: ["bot_token"] };
/** As a tool's input is shown: names as they are, long text, one JSON field for odd schemas. */
const ARGUMENTS: SchemaFormOptions = {
  prefix: "arg",
  ids: "index",
  labels: "names",
  longText: true,
  whole: { input: "arguments", id: "arguments-json", label: "Arguments" },
};

const settingsSchema = {
  type: "object",
  properties: {
    base_url: { type: "string", format: "uri", maxLength: 2000, description: "Where requests go." },
    bot_token: { type: "string", maxLength: 4096 },
    token: { type: "string", writeOnly: true, "x-secret": true },
    api_key: { type: "string" },
    headers: { type: "object", additionalProperties: { type: "string" }, "x-secret": true },
    labels: { type: "object", additionalProperties: { type: "string" } },
    transport: { type: "string", enum: ["auto", "sse"], default: "auto" },
    mode: { type: "string", enum: ["a", "b"] },
    timeout: { type: "integer", default: 30 },
    verbose: { type: "boolean", default: false },
    strict: { type: "boolean", default: true },
    extra: { type: "object", properties: { a: { type: "number" } } },
  },
  required: ["base_url", "bot_token"],
};

const argumentsSchema = {
  type: "object",
  properties: {
    expression: { type: "string", description: "What to work out." },
    short: { type: "string", maxLength: 50 },
    count: { type: "number" },
    tags: { type: "array", items: { type: "string" }, default: ["a", "b"] },
    picks: { type: "array", items: { type: "string", enum: ["x"] } },
    variables: { type: "object", default: {} },
    anything: {},
    union: { anyOf: [{ type: "string" }, { type: "number" }] },
    maybe: { anyOf: [{ type: "integer" }, { type: "null" }], description: "Or nothing." },
    either: { type: ["boolean", "null"] },
    headers: { type: "object", additionalProperties: { type: "string" } },
    level: { type: "string", enum: ["low", "high"], default: "low" },
  },
  required: ["expression", "tags", 7],
};

const byName = (fields: FormField[]) => Object.fromEntries(fields.map((f) => [f.name, f]));
const html = async (element: unknown) => String(await element);

describe("a JSON Schema as form fields", () => {
  it("names settings in words, by property, with secrets told by the platform, the schema and the name", () => {
    const fields = byName(schemaFields(settingsSchema, SETTINGS));
    expect(fields.base_url).toMatchObject({ label: "Base URL", input: "config.base_url", id: "config-base_url", kind: "url", required: true, maxLength: 2000 });
    expect(fields.base_url).toMatchObject({ description: "Where requests go.", secret: false, trim: true, initial: "" });
    expect([fields.bot_token, fields.token, fields.api_key, fields.headers].map((f) => f?.secret)).toEqual([true, true, true, true]);
    expect(fields.bot_token).toMatchObject({ kind: "text", required: true, label: "Bot token" });
    expect(fields.headers!.kind).toBe("pairs");
    expect(fields.labels).toMatchObject({ kind: "pairs", secret: false });
    expect(fields.transport).toMatchObject({ kind: "select", options: ["auto", "sse"], initial: "auto" });
    expect(fields.timeout).toMatchObject({ kind: "integer", initial: "30" });
    expect([fields.verbose?.initial, fields.strict?.initial]).toEqual(["", "true"]);
    expect(fields.extra!.kind).toBe("json");
    expect(labelOf("api_key")).toBe("API key");
    expect(labelOf("default_channel_id")).toBe("Default channel ID");
  });

  it("names arguments as the tool does, by position, and picks the control each type needs", () => {
    const list = schemaFields(argumentsSchema, ARGUMENTS);
    expect(list.map((f) => f.id)).toEqual(list.map((_, i) => `arg-${i}`));
    const fields = byName(list);
    expect(fields.expression).toMatchObject({ label: "expression", input: "arg.expression", kind: "textarea", required: true, secret: false, trim: false });
    expect(fields.short!.kind).toBe("text");
    expect(fields.count!.kind).toBe("number");
    expect(fields.tags).toMatchObject({ kind: "lines", required: true, initial: "a\nb" });
    expect(fields.picks!.kind).toBe("json");
    expect(fields.variables).toMatchObject({ kind: "json", initial: "{}" });
    expect(fields.anything!.kind).toBe("any");
    expect(fields.union!.kind).toBe("json");
    // Nullable: shown as the type it wraps, with the description of the whole.
    expect(fields.maybe).toMatchObject({ kind: "integer", description: "Or nothing." });
    expect(fields.either!.kind).toBe("checkbox");
    // A map is typed as JSON where rows are not asked for.
    expect(fields.headers!.kind).toBe("json");
    expect(fields.level).toMatchObject({ kind: "select", initial: "low" });
    // No secrets unless the form keeps some: a tool's "key" argument is shown like any other.
    expect(schemaFields({ properties: { key: { type: "string" } } }, ARGUMENTS)[0]!.secret).toBe(false);
  });

  it("falls back to one JSON field for the whole value without properties or with too many", () => {
    const whole = { name: "", input: "arguments", id: "arguments-json", label: "Arguments", kind: "json", required: true, initial: "{}" };
    expect(schemaFields({ type: "object" }, ARGUMENTS)).toEqual([expect.objectContaining(whole)]);
    const many = Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`p${i}`, { type: "string" }]));
    expect(schemaFields({ properties: many }, ARGUMENTS)).toEqual([expect.objectContaining(whole)]);
    expect(schemaFields({ properties: many }, SETTINGS)).toHaveLength(41);
    expect(schemaFields({ type: "object" }, SETTINGS)).toEqual([]);
  });

  it("starts from the schema's defaults, and shows a saved value again without its secrets", () => {
    const fields = schemaFields(settingsSchema, SETTINGS);
    expect(initialValues(fields)).toMatchObject({ "config.transport": "auto", "config.timeout": "30", "config.strict": "true", "config.base_url": "" });
    const saved = {
      base_url: "https://x.example",
      bot_token: "••••1234",
      headers: { A: "1" },
      labels: { one: "1", two: "2", three: "3", four: "4" },
      timeout: 5,
      verbose: false,
      strict: true,
      extra: { a: 1 },
    };
    const values = valuesOf(fields, saved);
    expect(values).toMatchObject({ "config.base_url": "https://x.example", "config.timeout": "5", "config.verbose": "", "config.strict": "true" });
    expect(values["config.extra"]).toBe('{\n  "a": 1\n}');
    expect(values).toMatchObject({ "config.labels.0.name": "one", "config.labels.0.value": "1", "config.labels.2.name": "three" });
    expect(values["config.labels.3.name"]).toBeUndefined();
    expect(JSON.stringify(values)).not.toMatch(/1234|config\.headers|config\.bot_token/);
  });
});

describe("a posted form read back", () => {
  it("reads settings trimmed, leaves empty optional ones out and keeps typed secrets out of the values", () => {
    const fields = schemaFields(settingsSchema, SETTINGS);
    const read = readForm(fields, {
      "config.base_url": "  https://x.example ",
      "config.bot_token": " xoxb-1 ",
      "config.api_key": "",
      "config.headers.0.name": "X-Key",
      "config.headers.0.value": "s3cret",
      "config.labels.1.name": "team",
      "config.labels.1.value": "blue",
      "config.transport": "sse",
      "config.timeout": "12",
      "config.strict": "true",
    });
    expect(read.errors).toEqual({});
    expect(read.value).toEqual({
      base_url: "https://x.example",
      bot_token: "xoxb-1",
      headers: { "X-Key": "s3cret" },
      labels: { team: "blue" },
      transport: "sse",
      timeout: 12,
      strict: true,
    });
    // Unticked is false only where a value is expected (required, or ticked by default).
    expect(readForm(fields, {}).value).toMatchObject({ strict: false });
    expect(readForm(fields, {}).value).not.toHaveProperty("verbose");
    expect(read.secretsEntered).toBe(true);
    expect(read.values).toMatchObject({ "config.base_url": "https://x.example", "config.headers.0.name": "X-Key", "config.labels.1.value": "blue" });
    expect(JSON.stringify(read.values)).not.toMatch(/xoxb|s3cret/);
    expect(readForm(fields, { "config.api_key": "" }).secretsEntered).toBe(false);
  });

  it("says which field could not be read: numbers, whole numbers, half-filled rows, JSON", () => {
    const fields = schemaFields(settingsSchema, SETTINGS);
    const read = readForm(fields, { "config.timeout": "1.5", "config.labels.0.name": "only", "config.extra": "{nope" });
    expect(read.errors).toMatchObject({ "config.timeout": "Enter a whole number.", "config.labels": "Give each row both a name and a value." });
    expect(read.errors["config.extra"]).toMatch(/^This is not valid JSON: /);
    expect(readForm(fields, { "config.timeout": "ten" }).errors).toEqual({ "config.timeout": "Enter a number." });
    const args = schemaFields(argumentsSchema, ARGUMENTS);
    expect(readForm(args, { "arg.count": "Infinity" }).errors).toEqual({ "arg.count": "Enter a number." });
    // A property is two levels down in the API's body, so it may nest one level less than a whole body.
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
    expect(readForm(args, { "arg.variables": deep(126) }).errors).toEqual({});
    expect(readForm(args, { "arg.variables": deep(127) }).errors).toEqual({ "arg.variables": "The value is nested deeper than 126 levels." });
  });

  it("reads arguments as typed: text kept whole, lists by line, untyped values as JSON or text, booleans only where expected", () => {
    const fields = schemaFields(argumentsSchema, ARGUMENTS);
    const read = readForm(fields, {
      "arg.expression": " 6 * 7 ",
      "arg.count": " 2.5 ",
      "arg.tags": " one \r\n\ntwo\n",
      "arg.variables": '{"x": 1}',
      "arg.anything": "plain words",
      "arg.union": "3",
      "arg.either": "on",
      "arg.level": "",
    });
    expect(read.errors).toEqual({});
    expect(read.value).toEqual({ expression: " 6 * 7 ", count: 2.5, tags: ["one", "two"], variables: { x: 1 }, anything: "plain words", union: 3 });
    expect(read.values).toMatchObject({ "arg.expression": " 6 * 7 ", "arg.either": "", "arg.short": "" });
    // A required list left empty is sent empty; an optional one is left out.
    expect(readForm(fields, {}).value).toEqual({ tags: [] });
    expect(readForm(fields, { "arg.anything": '{"a": [1]}' }).value).toMatchObject({ anything: { a: [1] } });
    expect(readForm(fields, { "arg.either": "true" }).value).toMatchObject({ either: true });
  });

  it("reads the whole-value field as a JSON object, one level down in the API's body", () => {
    const [whole] = schemaFields({}, ARGUMENTS);
    expect(readForm([whole!], { arguments: '{"a": 1}' })).toMatchObject({ value: { a: 1 }, errors: {} });
    expect(readForm([whole!], { arguments: "[1]" }).errors).toEqual({ arguments: "Enter a JSON object." });
    expect(readForm([whole!], { arguments: "" }).errors).toEqual({ arguments: "Enter a JSON object." });
    const deep = `${'{"a":'.repeat(127)}1${"}".repeat(127)}`;
    expect(readForm([whole!], { arguments: deep }).errors).toEqual({});
  });

  it("keeps a property named __proto__ as data", () => {
    const fields = schemaFields({ properties: { ["__proto__"]: { type: "string" } } }, ARGUMENTS);
    const read = readForm(fields, { "arg.__proto__": "x" });
    expect(Object.keys(read.value)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(read.value)).toBe(Object.prototype);
  });
});

describe("a service's refusal beside the fields", () => {
  it("places errors by the path under the root, with the inner path, and returns the rest", () => {
    const fields = schemaFields(settingsSchema, SETTINGS);
    const placed = placeErrors(
      fields,
      [
        { location: "body", field: "config.base_url", message: "Invalid URL." },
        { location: "body", field: "config.base_url", message: "Too long." },
        { location: "body", field: "config.headers.X-Key", message: "Bad name." },
        { location: "body", field: "config.unknown", message: "Not allowed." },
        { location: "body", field: "config", message: "Missing settings." },
        { location: "body", field: "name", message: "Too long." },
      ],
      "config",
    );
    expect(placed.errors).toEqual({ "config.base_url": "Invalid URL. Too long.", "config.headers": "headers.X-Key: Bad name." });
    expect(placed.unplaced).toEqual(["unknown: Not allowed.", "Missing settings.", "Too long."]);
  });

  it("gives the whole-value field what names no other field", () => {
    const [whole] = schemaFields({}, ARGUMENTS);
    const placed = placeErrors([whole!], [{ location: "body", field: "arguments.x", message: "Expected number." }], "arguments");
    expect(placed).toEqual({ errors: { arguments: "x: Expected number." }, unplaced: [] });
    const args = schemaFields(argumentsSchema, ARGUMENTS);
    expect(placeErrors(args, [{ location: "body", field: "arguments.variables.x", message: "Wrong." }], "arguments").errors).toEqual({
      "arg.variables": "variables.x: Wrong.",
    });
  });
});

describe("the fields on the page", () => {
  it("labels each control, marks required ones, ties hints and errors to it, and never shows a secret", async () => {
    const fields = schemaFields(settingsSchema, SETTINGS);
    const values = { ...initialValues(fields), "config.bot_token": "leaked?", "config.verbose": "true", "config.labels.0.name": "team" };
    const page = await html(FormFields({ fields, values, errors: { "config.base_url": "Invalid URL.", "config.headers": "Half a row." } }));
    expect(page).toContain('<label for="config-base_url">Base URL<span class="required"> (required)</span></label>');
    expect(page).toContain(
      '<p class="hint" id="config-base_url-hint">Where requests go.</p><p class="field-error" id="config-base_url-error">Invalid URL.</p>',
    );
    expect(page).toMatch(
      /<input type="url" value="" spellcheck="false" autocomplete="off" required="" maxlength="2000" id="config-base_url" name="config.base_url" aria-describedby="config-base_url-hint config-base_url-error" aria-invalid="true"/,
    );
    expect(page).not.toContain("leaked?");
    expect(page).toMatch(/<input type="password" value="" autocomplete="new-password"[^>]*required=""[^>]*id="config-bot_token" name="config.bot_token"/);
    expect(page).toContain('<p class="hint" id="config-bot_token-hint">Secret: stored encrypted and never shown again.</p>');
    expect(page).toContain("<legend>Headers</legend>");
    expect(page).toContain('<p class="field-error" id="config-headers-error">Half a row.</p>');
    expect(page).toMatch(/<input type="password" id="config-headers-2-value" name="config.headers.2.value" value="" autocomplete="new-password"/);
    expect(page).toContain('<label for="config-labels-0-name">Label 1 name</label>');
    expect(page).toMatch(/<input type="text" id="config-labels-0-name" name="config.labels.0.name" value="team"/);
    expect(page).toContain('<input type="text" id="config-labels-0-value" name="config.labels.0.value" value=""');
    // A select with a default needs no "not set"; one without offers it.
    expect(page).toMatch(/<select id="config-transport" name="config.transport"><option value="auto" selected="">auto<\/option>/);
    expect(page).toMatch(/<select id="config-mode" name="config.mode"><option value="">\(not set\)<\/option><option value="a">/);
    expect(page).toMatch(
      /<div class="check"><input type="checkbox" value="true" checked="" id="config-verbose" name="config.verbose"\/><label for="config-verbose">Verbose<\/label>/,
    );
    expect(page).toContain('<label for="config-timeout">Timeout (a whole number)</label>');
    expect(page).toMatch(/<input type="number" step="1" value="30" id="config-timeout" name="config.timeout"\/>/);
    expect(page).toMatch(/<textarea rows="5" spellcheck="false" id="config-extra" name="config.extra"><\/textarea>/);

    const editing = await html(FormFields({ fields, values: {}, errors: {}, editing: true }));
    expect(editing).toContain("Secret: leave empty to keep the saved value.");
  });

  it("shows arguments with what each kind expects, text and JSON in textareas", async () => {
    const fields = schemaFields(argumentsSchema, ARGUMENTS);
    const values = { ...initialValues(fields), "arg.expression": "6*7", "arg.variables": "{not json" };
    const page = await html(FormFields({ fields, values, errors: { "arg.variables": "This is not valid JSON." } }));
    expect(page).toContain('<label for="arg-0">expression<span class="required"> (required)</span></label>');
    expect(page).toContain('<p class="hint" id="arg-0-hint">What to work out.</p>');
    expect(page).toContain('<textarea rows="3" spellcheck="true" required="" id="arg-0" name="arg.expression" aria-describedby="arg-0-hint">6*7</textarea>');
    expect(page).toMatch(/<input type="text" value="" autocomplete="off" maxlength="50" id="arg-1" name="arg.short"\/>/);
    expect(page).toContain('<label for="arg-3">tags (one value per line)<span class="required"> (required)</span></label>');
    // A required list may be sent empty, so the browser does not insist.
    expect(page).toContain('<textarea rows="5" spellcheck="false" id="arg-3" name="arg.tags">a\nb</textarea>');
    expect(page).toContain('<label for="arg-5">variables (JSON)</label>');
    expect(page).toMatch(/<textarea[^>]*id="arg-5" name="arg.variables" aria-describedby="arg-5-error" aria-invalid="true">\{not json<\/textarea>/);
    expect(page).toContain('<label for="arg-6">anything (JSON, or plain text)</label>');
    expect(page).toMatch(/<select id="arg-11" name="arg.level"><option value="low" selected="">low<\/option>/);

    const [whole] = schemaFields({}, ARGUMENTS);
    const one = await html(FormFields({ fields: [whole!], values: initialValues([whole!]), errors: {} }));
    expect(one).toContain('<label for="arguments-json">Arguments (JSON)<span class="required"> (required)</span></label>');
    expect(one).toContain('<textarea rows="5" spellcheck="false" required="" id="arguments-json" name="arguments">{}</textarea>');
  });

  it("offers 'not set' where a select's value is not one of its options", async () => {
    const fields = schemaFields(argumentsSchema, ARGUMENTS).filter((f) => f.name === "level");
    const page = await html(FormFields({ fields, values: { "arg.level": "" }, errors: {} }));
    expect(page).toMatch(/<select id="arg-11" name="arg.level"><option value="">\(not set\)<\/option><option value="low">low/);
  });
});
