import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";

/**
 * Reads text out of the sandbox with the bound on the host's side: a string's length is read
 * through its handle (nothing copied), and a string longer than asked is cut inside the sandbox
 * by a copy of `String.prototype.slice` taken before any of the user's code ran, whose answer
 * the host checks again before copying it. Code that replaces built-ins changes only what its
 * own values look like, never how much the host copies.
 */
export class SandboxText {
  private constructor(
    readonly vm: QuickJSContext,
    /** `slice(text, start, end)`, `text(value)` (String) and `json(value)` (JSON.stringify), as they were before the code ran. */
    private readonly helpers: { slice: QuickJSHandle; text: QuickJSHandle; json: QuickJSHandle },
  ) {}

  /** Takes the helpers from a fresh context: call it before the user's code (or the prelude) runs. */
  static capture(vm: QuickJSContext): SandboxText {
    const captured = vm.unwrapResult(
      vm.evalCode("[Function.prototype.call.bind(String.prototype.slice), String, JSON.stringify]", "host-text.js", { type: "global" }),
    );
    try {
      return new SandboxText(vm, { slice: vm.getProp(captured, 0), text: vm.getProp(captured, 1), json: vm.getProp(captured, 2) });
    } finally {
      captured.dispose();
    }
  }

  /** The length of a string in UTF-16 units, read without copying it; null for anything else. */
  lengthOf(handle: QuickJSHandle): number | null {
    if (this.vm.typeof(handle) !== "string") return null;
    const length = this.vm.getProp(handle, "length");
    try {
      return this.vm.typeof(length) === "number" ? this.vm.getNumber(length) : null;
    } finally {
      length.dispose();
    }
  }

  /**
   * A string's first `maxChars` characters, with `cut` when there were more; null when the handle
   * is no string. At most `maxChars` characters ever leave the sandbox.
   */
  read(handle: QuickJSHandle, maxChars: number): { text: string; cut: boolean } | null {
    const length = this.lengthOf(handle);
    if (length === null) return null;
    if (length <= maxChars) return { text: this.vm.getString(handle), cut: false };
    const start = this.vm.newNumber(0);
    const end = this.vm.newNumber(maxChars);
    const head = this.vm.callFunction(this.helpers.slice, this.vm.undefined, handle, start, end);
    start.dispose();
    end.dispose();
    if (head.error) {
      head.error.dispose();
      return { text: "", cut: true };
    }
    try {
      // Checked again here: only a string within the bound is copied.
      const headLength = this.lengthOf(head.value);
      return { text: headLength !== null && headLength <= maxChars ? this.vm.getString(head.value) : "", cut: true };
    } finally {
      head.value.dispose();
    }
  }

  /** `read`, with "…" where it was cut. */
  bounded(handle: QuickJSHandle, maxChars: number): string | null {
    const read = this.read(handle, maxChars);
    return read && (read.cut ? `${read.text}…` : read.text);
  }

  /**
   * Any value as a short text: strings as they are, other values through the captured
   * `JSON.stringify` (else `String`), all within `maxChars`; null when it cannot be shown (a
   * throwing `toJSON` or `toString`, a symbol inside).
   */
  describe(handle: QuickJSHandle, maxChars: number): string | null {
    const type = this.vm.typeof(handle);
    if (type === "string") {
      const text = this.bounded(handle, maxChars);
      return text === null ? null : JSON.stringify(text);
    }
    if (type === "undefined") return "undefined";
    for (const convert of type === "bigint" || type === "symbol" ? [this.helpers.text] : [this.helpers.json, this.helpers.text]) {
      const converted = this.vm.callFunction(convert, this.vm.undefined, handle);
      if (converted.error) {
        converted.error.dispose();
        continue;
      }
      try {
        const text = this.bounded(converted.value, maxChars);
        if (text !== null) return type === "bigint" ? `${text}n` : text;
      } finally {
        converted.value.dispose();
      }
    }
    return null;
  }

  /** A property of an object as a bounded string; null when it is no string or reading it threw. */
  property(handle: QuickJSHandle, key: string, maxChars: number): string | null {
    const value = this.vm.getProp(handle, key);
    try {
      return this.bounded(value, maxChars);
    } finally {
      value.dispose();
    }
  }

  dispose() {
    for (const handle of Object.values(this.helpers)) if (handle.alive) handle.dispose();
  }
}
