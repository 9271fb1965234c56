// hub login [--url] [--api-key | --email --password]: checks the credential against the hub and
// saves the address and an API key (made for this machine when signing in with a password).
import os from "node:os";
import type { Command } from "commander";
import { createHubClient } from "../index.ts";
import { configPath, normalizeUrl, writeConfig } from "./config.ts";
import { CliError, printJson, unwrap } from "./output.ts";
import { ask, askSecret } from "./prompt.ts";
import { globalOptions } from "./session.ts";

interface LoginOptions {
  url?: string;
  apiKey?: string;
  email?: string;
  password?: string;
}

export function loginCommand(program: Command) {
  program
    .command("login")
    .description(`sign in to a hub and save its address and an API key (in ${configPath()}, readable by you only)`)
    .option("--url <url>", "the hub's address, e.g. http://127.0.0.1:8787")
    .option("--api-key <key>", "use this API key")
    .option("--email <email>", "sign in with email and password; a new API key is made for this machine")
    .option("--password <password>", "the password (asked for when left out; HUB_PASSWORD works too)")
    .action(async (options: LoginOptions, command: Command) => {
      const globals = globalOptions(command);
      const url = normalizeUrl(options.url ?? (await ask("Hub URL", "http://127.0.0.1:8787")));
      const token = options.apiKey ?? (await keyFromPassword(url, options));
      const me = unwrap(await createHubClient({ baseUrl: url, token, workspace: globals.workspace }).GET("/v1/me"));
      const file = writeConfig({ url, token, ...(globals.workspace ? { workspace: globals.workspace } : {}) });
      if (globals.json) return printJson({ url, email: me.email, config: file });
      process.stdout.write(`logged in to ${url} as ${me.email}; saved to ${file}\n`);
    });
}

/** Signs in, makes an API key named for this machine, and signs the session out again. */
async function keyFromPassword(url: string, options: LoginOptions): Promise<string> {
  const email = options.email ?? (await ask("Email (or leave empty to paste an API key)"));
  if (!email) {
    const key = await askSecret("API key");
    if (!key) throw new CliError("Give --api-key, or --email and --password.");
    return key;
  }
  const password = options.password ?? process.env.HUB_PASSWORD ?? (await askSecret("Password"));
  const hub = createHubClient({ baseUrl: url });
  const session = unwrap(await hub.POST("/v1/auth/login", { body: { email, password } }));
  const signedIn = createHubClient({ baseUrl: url, token: session.access_token });
  const created = unwrap(await signedIn.POST("/v1/auth/api-keys", { body: { name: `hub CLI on ${os.hostname()}`.slice(0, 100) } }));
  // The key is what stays; the session it was made with is not needed any more.
  await signedIn.POST("/v1/auth/logout");
  return created.key;
}
