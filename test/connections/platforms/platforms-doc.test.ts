// docs/platforms.md is generated from the declarations; this fails when someone adds or changes a
// platform without regenerating it (npx tsx scripts/platforms-doc.ts).
import { describe, expect, it } from "vitest";
import page from "../../../docs/platforms.md?raw";
import { PLATFORMS, platformToolName } from "../../../src/connections/platforms";
import { renderPlatformsDoc } from "../../../src/connections/platforms/platforms-doc";

describe("docs/platforms.md", () => {
  it("is what the declarations say now (regenerate with npx tsx scripts/platforms-doc.ts)", () => {
    expect(page).toBe(renderPlatformsDoc());
  });

  it("lists every platform and every tool by its callable name, and each poll names a tool of its platform", () => {
    for (const platform of PLATFORMS) {
      expect(page).toContain(`(\`${platform.id}\`)`);
      for (const tool of platform.tools) expect(page).toContain(`\`${platformToolName(platform, tool.action)}\``);
      for (const poll of platform.polls ?? []) expect(platform.tools.map((t) => t.action)).toContain(poll.action);
    }
  });
});
