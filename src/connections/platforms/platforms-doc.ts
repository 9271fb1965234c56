import { PLATFORMS, platformToolName } from "./index";
import type { Platform } from "./types";

// docs/platforms.md is written from the declarations (scripts/platforms-doc.ts) and a test checks
// it is current, so the page cannot drift from what the hub offers.

const AUTH: Record<Platform["authKind"], string> = {
  bearer_token: "token",
  bot_token: "bot token",
  api_key: "API key",
  basic: "API key (Basic)",
  signing_secret: "signing secret",
  optional_bearer: "optional token",
  none: "none",
  oauth2: "OAuth 2.0",
};

function auth(platform: Platform): string {
  const base = AUTH[platform.authKind];
  return platform.oauth && platform.authKind !== "oauth2" ? `${base} or OAuth 2.0` : base;
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

export function renderPlatformsDoc(platforms: readonly Platform[] = PLATFORMS): string {
  const tools = platforms.reduce((sum, p) => sum + p.tools.length, 0);
  const polls = platforms.reduce((sum, p) => sum + (p.polls?.length ?? 0), 0);
  const rows = [...platforms]
    .sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name))
    .map((p) => {
      const toolNames =
        p.id === "mcp" ? "the server's own tools" : p.tools.map((t) => `\`${platformToolName(p, t.action)}\``).join(", ") || "— (models for agents)";
      const triggers = (p.polls ?? []).map((poll) => `${poll.title} (\`${platformToolName(p, poll.action)}\`)`).join(", ") || "—";
      return `| ${cell(p.name)} (\`${p.id}\`) | ${p.category} | ${auth(p)} | ${toolNames} | ${cell(triggers)} |`;
    });
  return [
    "# Platforms",
    "",
    "<!-- Generated from src/connections/platforms/ by `npx tsx scripts/platforms-doc.ts`; do not edit by hand. -->",
    "",
    `${platforms.length} platforms, ${tools} tools, ${polls} polling triggers. Each tool is called \`<platform>_<action>\`; its input schema`,
    "is in `GET /v1/connections/platforms` and `GET /v1/tools`. A polling trigger is a `poll` trigger",
    "(docs/triggers.md#polling) on the named list tool, with its `items_path` and `id_path` as the",
    "platform declares them. How connections are made: [connections](connections.md).",
    "",
    "| platform | category | auth | tools | triggers (poll) |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}
