import type { ServiceContext } from "../../core/context";
import type { Connection } from "../../db/schema";
import { openConfig } from "../../connections/config-codec";
import { connectionGovernorName, governorFor } from "../../connections/governor";
import { connectionInUse } from "../../connections/in-use";
import { platformCallConfig } from "../../connections/oauth-tokens";
import { findPlatform } from "../../connections/platforms";
import { platformClient } from "../../connections/platforms/client";
import { platformFor } from "../../connections/platforms/oauth-spec";
import type { Platform, PlatformClient } from "../../connections/platforms/types";
import { addressPolicyFor } from "../../net/address-policy";

/** How long one message to a channel may take, its connection's governor included. */
const SEND_TIMEOUT_MS = 15_000;

/** A channel's connection, ready to call: the caller's own, of one of `platforms`, else a ChannelFailure. */
export interface ChannelConnection {
  connection: Connection;
  platform: Platform;
  client: PlatformClient<Record<string, any>>;
}

/** Why a channel was not told: logged with the approval and channel, never with a secret. */
export class ChannelFailure extends Error {}

/**
 * The connection `id` of the caller (the approval's owner), decrypted and wrapped in the client
 * its tools use: the connection's base URL, its rate governor, its OAuth token renewed as needed,
 * and the outbound address policy.
 */
export async function channelConnection(ctx: ServiceContext, id: number, platforms: readonly string[]): Promise<ChannelConnection> {
  const { connection, platform, config } = await openChannelConnection(ctx, id, platforms);
  const signal = AbortSignal.timeout(SEND_TIMEOUT_MS);
  const authorized = await platformCallConfig(ctx, platform, connection, config);
  const client = platformClient(platform, authorized.config, {
    policy: addressPolicyFor(ctx.config),
    signal,
    governor: governorFor(ctx.bindings, connectionGovernorName(connection), platform, { signal }),
    onUnauthorized: authorized.renew,
  });
  return { connection, platform, client };
}

/** The connection and its decrypted config (a Slack connection's signing secret), with no client. */
export async function openChannelConnection(
  ctx: ServiceContext,
  id: number,
  platforms: readonly string[],
): Promise<{ connection: Connection; platform: Platform; config: Record<string, any> }> {
  const connection = await connectionInUse(ctx, id).catch(() => {
    throw new ChannelFailure(`connection ${id} does not exist`);
  });
  const platform = findPlatform(connection.platform);
  if (!platform || !platforms.includes(platform.id)) throw new ChannelFailure(`connection ${id} is a ${connection.platform} connection`);
  const config = await openConfig(platformFor(platform, connection.authMode), connection.config, connection.uid, await ctx.secrets()).catch(() => {
    throw new ChannelFailure(`connection ${id}'s stored credentials cannot be decrypted`);
  });
  return { connection, platform, config };
}
