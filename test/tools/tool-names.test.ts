import { describe, expect, it } from "vitest";
import { mcpToolName } from "../../src/tools/catalog";

describe("MCP tool names", () => {
  it("keep a server's tool name when it fits, and stay within 64 safe characters", () => {
    expect(mcpToolName(12, "get-sum")).toBe("mcp_12_get-sum");
    for (const raw of ["files.read", "a".repeat(100), "weird name/with spaces", "ünïcode"]) {
      const name = mcpToolName(12, raw);
      expect(name).toMatch(/^mcp_12_[A-Za-z0-9_-]+$/);
      expect(name.length).toBeLessThanOrEqual(64);
      expect(mcpToolName(12, raw)).toBe(name); // stable
    }
  });

  it("never map two different tool names to the same name", () => {
    const names = ["a.b", "a_b", "a b", `${"x".repeat(70)}1`, `${"x".repeat(70)}2`];
    const mapped = names.map((n) => mcpToolName(3, n));
    expect(new Set(mapped).size).toBe(names.length);
  });
});
