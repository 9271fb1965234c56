// Where `hub login` keeps the hub's address and the API key: $HUB_CONFIG, else
// $XDG_CONFIG_HOME/agent-hub/config.json, else ~/.config/agent-hub/config.json. The file holds a
// secret, so it is readable by its owner only (0600, in a 0700 folder).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CliError } from "./output.ts";

export interface HubConfig {
  url: string;
  token: string;
  /** The workspace every command acts in unless --workspace says otherwise. */
  workspace?: string;
}

export function configPath(): string {
  if (process.env.HUB_CONFIG) return path.resolve(process.env.HUB_CONFIG);
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "agent-hub", "config.json");
}

export function readConfig(): HubConfig | undefined {
  const file = configPath();
  if (!existsSync(file)) return undefined;
  try {
    const config = JSON.parse(readFileSync(file, "utf8"));
    if (typeof config?.url === "string" && typeof config?.token === "string") return config;
  } catch {
    // reported below
  }
  throw new CliError(`${file} is not a hub configuration; run \`hub login\` again.`);
}

export function writeConfig(config: HubConfig): string {
  const file = configPath();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // The mode above only applies to a new file: an older one is narrowed too.
  chmodSync(file, 0o600);
  return file;
}

/** The hub's origin from what a person types: `localhost:8787`, `https://hub.example.com/v1/`. */
export function normalizeUrl(input: string): string {
  const withScheme = /^https?:\/\//i.test(input) ? input : `http://${input}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new CliError(`"${input}" is not a URL.`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "").replace(/\/v1$/, "")}`;
}
