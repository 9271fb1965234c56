// The client every command calls the hub with: the saved login (or HUB_URL and HUB_TOKEN), and
// the global options (--json, --workspace).
import type { Command } from "commander";
import { createHubClient, type HubClient } from "../index.ts";
import { normalizeUrl, readConfig } from "./config.ts";
import { CliError } from "./output.ts";

export interface GlobalOptions {
  json?: boolean;
  workspace?: string;
}

export interface Session {
  client: HubClient;
  /** Machine output: print the API's answers as JSON. */
  json: boolean;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

export function openSession(command: Command): Session {
  const globals = globalOptions(command);
  const saved = readConfig();
  // Both from the environment, or both from the login: a saved key never goes to another address.
  const fromEnv = process.env.HUB_TOKEN ? { url: process.env.HUB_URL, token: process.env.HUB_TOKEN } : undefined;
  if (fromEnv && !fromEnv.url) throw new CliError("HUB_TOKEN is set without HUB_URL.");
  const login = fromEnv ?? saved;
  if (!login?.url) throw new CliError("Not logged in: run `hub login` (or set HUB_URL and HUB_TOKEN).");
  const workspace = globals.workspace ?? (fromEnv ? process.env.HUB_WORKSPACE : saved?.workspace);
  return { client: createHubClient({ baseUrl: normalizeUrl(login.url), token: login.token, workspace }), json: Boolean(globals.json) };
}
