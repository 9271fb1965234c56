import { openConfig } from "./config-codec";
import { getConnection, recordConnectionHealth, requirePlatform } from "./service";
import { type ConnectionTestResult, testConnectionConfig } from "./test-connection";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { SecretUnreadable } from "../core/secret-box";
import type { Connection } from "../db/schema";

/**
 * "Test <name>": runs the connection test (the one POST /v1/connections/test runs) on a saved
 * connection's own config, and records the outcome as the connection's health, as tool calls do,
 * so its status and message say what the test found. Throws not_found for anyone else's id.
 */
export async function retestConnection(
  ctx: ServiceContext,
  id: number,
  signal?: AbortSignal,
): Promise<{ connection: Connection; outcome: ConnectionTestResult }> {
  const connection = await getConnection(ctx, id);
  const outcome = await testSaved(ctx, connection, signal);
  await recordConnectionHealth(ctx.db, connection, { status: outcome.status, message: outcome.message });
  return { connection: await getConnection(ctx, id), outcome };
}

async function testSaved(ctx: ServiceContext, connection: Connection, signal?: AbortSignal): Promise<ConnectionTestResult> {
  try {
    const platform = requirePlatform(connection.platform);
    const config = await openConfig(platform, connection.config, connection.uid, await ctx.secrets());
    return await testConnectionConfig(ctx, { platform: platform.id, config }, signal);
  } catch (error) {
    // What the saved connection can no longer do is its health, not a failure of the page.
    if (error instanceof SecretUnreadable) {
      return { success: false, status: "error", message: "The stored secret can no longer be read; add the connection again." };
    }
    if (error instanceof HubError && error.code === "validation_failed") {
      const detail = error.errors?.map((e) => `${e.field}: ${e.message}`).join(" ") ?? "";
      return { success: false, status: "error", message: `${error.message} ${detail}`.trim() };
    }
    throw error;
  }
}
