// Writes docs/platforms.md from the platform declarations: `npx tsx scripts/platforms-doc.ts`.
// test/connections/platforms/platforms-doc.test.ts fails when the page is out of date.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { renderPlatformsDoc } from "../src/connections/platforms/platforms-doc";

const target = path.join(import.meta.dirname, "..", "docs", "platforms.md");
writeFileSync(target, renderPlatformsDoc());
console.log(`wrote ${path.relative(process.cwd(), target)}`);
