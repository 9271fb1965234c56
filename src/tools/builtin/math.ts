import { z } from "@hono/zod-openapi";
import { ToolError, defineBuiltin } from "../types";

const FUNCTIONS: Record<string, (...args: number[]) => number> = {
  abs: Math.abs,
  ceil: Math.ceil,
  floor: Math.floor,
  round: (x, digits = 0) => Math.round(x * 10 ** digits) / 10 ** digits,
  sqrt: Math.sqrt,
  pow: Math.pow,
  min: Math.min,
  max: Math.max,
  log: Math.log,
  log10: Math.log10,
  exp: Math.exp,
  avg: (...xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
  sum: (...xs) => xs.reduce((a, b) => a + b, 0),
};

export const mathTool = defineBuiltin({
  name: "math_evaluate",
  effect: "read",
  title: "Evaluate arithmetic",
  description:
    "Evaluates an arithmetic expression exactly, e.g. `round(revenue / visitors * 100, 2)`: numbers, + - * / % ^, parentheses, variables from `variables`, and abs ceil floor round sqrt pow min max log log10 exp avg sum. No code is run.",
  input: z.object({
    expression: z.string().min(1).max(1000),
    variables: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.number()).default({}),
  }),
  async run(_ctx, args) {
    const result = new Parser(args.expression, args.variables).parse();
    if (!Number.isFinite(result)) throw new ToolError("The result is not a finite number (division by zero?).");
    return { result };
  },
});

/** A recursive-descent parser over a token list; depth and length are bounded by the input cap. */
class Parser {
  private tokens: string[];
  private position = 0;

  constructor(
    expression: string,
    private variables: Record<string, number>,
  ) {
    const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|[A-Za-z_][A-Za-z0-9_]*|[-+*/%^(),]|\S/gi) ?? [];
    const bad = tokens.find((t) => /^[^\w\s.+\-*/%^(),]$/.test(t));
    if (bad) throw new ToolError(`Unexpected character "${bad}".`);
    this.tokens = tokens;
  }

  parse(): number {
    const value = this.additive();
    if (this.position < this.tokens.length) throw new ToolError(`Unexpected "${this.tokens[this.position]}".`);
    return value;
  }

  private peek() {
    return this.tokens[this.position];
  }
  private take(expected?: string) {
    const token = this.tokens[this.position++];
    if (token === undefined || (expected && token !== expected)) throw new ToolError(expected ? `Expected "${expected}".` : "Unexpected end of expression.");
    return token;
  }

  private additive(): number {
    let value = this.multiplicative();
    while (this.peek() === "+" || this.peek() === "-") value = this.take() === "+" ? value + this.multiplicative() : value - this.multiplicative();
    return value;
  }
  private multiplicative(): number {
    let value = this.unary();
    while (["*", "/", "%"].includes(this.peek() ?? "")) {
      const op = this.take();
      const right = this.unary();
      value = op === "*" ? value * right : op === "/" ? value / right : value % right;
    }
    return value;
  }
  private unary(): number {
    if (this.peek() === "-" || this.peek() === "+") {
      const sign = this.take() === "-" ? -1 : 1;
      return sign * this.unary();
    }
    return this.power();
  }
  private power(): number {
    const base = this.primary();
    if (this.peek() !== "^") return base;
    this.take();
    return base ** this.unary();
  }
  private primary(): number {
    const token = this.take();
    if (token === "(") {
      const value = this.additive();
      this.take(")");
      return value;
    }
    if (/^\d/.test(token)) return Number(token);
    if (/^[A-Za-z_]/.test(token)) {
      if (this.peek() === "(") {
        const fn = Object.hasOwn(FUNCTIONS, token.toLowerCase()) ? FUNCTIONS[token.toLowerCase()] : undefined;
        if (!fn) throw new ToolError(`Unknown function "${token}".`);
        this.take("(");
        const args: number[] = [];
        if (this.peek() !== ")") {
          args.push(this.additive());
          while (this.peek() === ",") {
            this.take();
            args.push(this.additive());
          }
        }
        this.take(")");
        return fn(...args);
      }
      if (!Object.hasOwn(this.variables, token)) throw new ToolError(`Unknown variable "${token}".`);
      return this.variables[token]!;
    }
    throw new ToolError(`Unexpected "${token}".`);
  }
}
