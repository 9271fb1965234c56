import type { ServiceContext } from "../core/context";
import { requirePlatform, validateConfig } from "./service";
import { addressPolicyFor } from "../net/address-policy";
import { chargeToolCalls } from "../http/rate-limit";
import { McpError, listMcpTools } from "./mcp-client";
import { platformClient } from "./platforms/client";
import type { McpConfig } from "./platforms/mcp";
import { PlatformError } from "./platforms/types";

export interface ConnectionTestResult {
  success: boolean;
  status: "active" | "error" | "expired";
  message: string;
  tools?: string[];
}

/**
 * Tries a config before it is saved: an MCP server is connected to and its tools listed; other
 * platforms make their cheapest authenticated call. Nothing is stored. A test that reaches
 * outside costs a tool call (429 when they are used up), whichever door asked for it.
 */
export async function testConnectionConfig(
  ctx: ServiceContext,
  input: { platform: string; config: unknown },
  signal?: AbortSignal,
): Promise<ConnectionTestResult> {
  const platform = requirePlatform(input.platform);
  const settings = validateConfig(platform, input.config);
  const policy = addressPolicyFor(ctx.config);
  if (platform.id === "mcp" || platform.test) await chargeToolCalls(ctx);
  try {
    if (platform.id === "mcp") {
      const tools = await listMcpTools(settings as McpConfig, { policy, signal });
      return { success: true, status: "active", message: `Connected; the server offers ${tools.length} tool(s).`, tools: tools.map((t) => t.name) };
    }
    if (!platform.test) {
      return { success: true, status: "active", message: `The config is valid. ${platform.name} has no side-effect-free test call, so nothing was sent.` };
    }
    const message = await platform.test(platformClient(platform, settings, { policy, signal }));
    return { success: true, status: "active", message };
  } catch (error) {
    if (error instanceof PlatformError) return { success: false, status: error.authFailure ?? "error", message: error.message };
    if (error instanceof McpError) return { success: false, status: "error", message: error.message };
    return { success: false, status: "error", message: error instanceof Error ? error.message : String(error) };
  }
}
