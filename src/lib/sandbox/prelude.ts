/**
 * Runs first in every context, before the user's code: the console (its lines go to `emit`; the
 * writer stops adding arguments past `maxChars`, and the host cuts each line, as code can change
 * anything that runs in here), clear refusals for what a code step cannot do, and the JSON
 * helpers that carry the input in and the result out, holding their own copies of JSON's
 * functions so that code changing the built-ins changes only its own result (the host checks the
 * result's size again).
 */
export const PRELUDE = `(function (emit, maxChars) {
  "use strict";
  const stringify = JSON.stringify, parse = JSON.parse, toText = String, ErrorType = Error, TypeErrorType = TypeError;
  function show(value) {
    try {
      if (typeof value === "string") return value;
      if (value === undefined) return "undefined";
      if (typeof value === "function") return "[Function " + (value.name || "anonymous") + "]";
      if (typeof value === "symbol" || typeof value === "bigint") return toText(value);
      if (value instanceof ErrorType) return value.name + ": " + value.message;
      const text = stringify(value);
      return text === undefined ? toText(value) : text;
    } catch (error) {
      try { return toText(value); } catch (again) { return "[value that cannot be shown]"; }
    }
  }
  function writer(level) {
    return function () {
      let line = level;
      for (let i = 0; i < arguments.length; i++) {
        line += (i > 0 ? " " : "") + show(arguments[i]);
        if (line.length > maxChars) break;
      }
      emit(line);
    };
  }
  const log = writer("");
  globalThis.console = { log: log, info: log, debug: log, trace: log, warn: writer("warn: "), error: writer("error: ") };
  function unavailable(name, why) {
    return function () { throw new TypeErrorType(name + " is not available in a code step: " + why); };
  }
  globalThis.fetch = unavailable("fetch", "it has no network. Call out with a tool step and pass its result in.");
  globalThis.require = unavailable("require", "it has no modules, only the language's built-ins.");
  function where(key) { return key === "" ? "" : " (at key " + stringify(toText(key)) + ")"; }
  return {
    parse: function (text) { return parse(text); },
    json: function (value, maxLength) {
      if (value === undefined) return "null";
      const text = stringify(value, function (key, item) {
        if (typeof item === "function") throw new TypeErrorType("it holds a function" + where(key));
        if (typeof item === "symbol") throw new TypeErrorType("it holds a symbol" + where(key));
        return item;
      });
      if (text === undefined) return "null";
      return text.length > maxLength ? text.length : text;
    },
  };
})`;
