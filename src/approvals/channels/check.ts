import type { ServiceContext } from "../../core/context";
import { type FieldError, validationFailed } from "../../core/errors";
import { connectionInUse } from "../../connections/in-use";
import { addressPolicyFor } from "../../net/address-policy";
import { OutboundRefused, checkUrl } from "../../net/safe-fetch";
import { EMAIL_PLATFORMS, isEmailPlatform, senderOf } from "./email";
import { ApprovalsConfigSchema, type NotifyChannel } from "./schema";

/**
 * Checks `agent_config.approvals` when an agent is deployed or changed: its shape, and that each
 * channel can work: a Slack channel's connection is the caller's Slack connection with a
 * `signing_secret` (without it no click could be verified); an email channel's is the caller's
 * Resend, SendGrid, Postmark, Mailgun or Brevo connection with a sender; a webhook's URL passes
 * the deployment's address policy.
 */
export async function checkApprovalChannels(ctx: ServiceContext, config: Record<string, unknown>, field = "agent_config"): Promise<void> {
  if (config.approvals === undefined) return;
  const parsed = ApprovalsConfigSchema.safeParse(config.approvals);
  if (!parsed.success) {
    throw validationFailed(
      parsed.error.issues.slice(0, 20).map((issue) => ({
        location: "body",
        field: [`${field}.approvals`, ...issue.path.map(String)].join("."),
        message: issue.message,
      })),
      "agent_config.approvals is not valid.",
    );
  }
  const errors = (await Promise.all(parsed.data.notify.map((channel) => channelProblem(ctx, channel)))).flatMap((message, i) =>
    message ? [{ location: "body", field: `${field}.approvals.notify.${i}`, message } satisfies FieldError] : [],
  );
  if (errors.length) throw validationFailed(errors, "agent_config.approvals.notify names channels that cannot work.");
}

/**
 * Why a channel cannot work, or undefined when it can. `buttons`: the Slack message carries Approve
 * and Deny buttons, whose clicks are verified with the connection's signing_secret (alerts carry none).
 */
export async function channelProblem(
  ctx: ServiceContext,
  channel: NotifyChannel,
  options: { buttons: boolean } = { buttons: true },
): Promise<string | undefined> {
  if (channel.via === "webhook") {
    try {
      checkUrl(channel.url, addressPolicyFor(ctx.config));
      return undefined;
    } catch (error) {
      if (error instanceof OutboundRefused) return error.message;
      throw error;
    }
  }
  const connection = await connectionInUse(ctx, channel.connection_id).catch(() => undefined);
  if (!connection) return `You have no connection ${channel.connection_id}.`;
  if (channel.via === "slack") {
    if (connection.platform !== "slack") return `Connection ${connection.id} is a ${connection.platform} connection, not Slack.`;
    if (options.buttons && connection.config.signing_secret === undefined)
      return `Set signing_secret on Slack connection ${connection.id} (your Slack app's Signing Secret): clicks on the buttons are verified with it.`;
    return undefined;
  }
  if (!isEmailPlatform(connection.platform))
    return `Connection ${connection.id} is a ${connection.platform} connection; email goes through ${EMAIL_PLATFORMS.join(", ")}.`;
  if (!senderOf(connection.platform, channel.from, connection.config)) return `Connection ${connection.id} has no default sender: name one in "from".`;
  return undefined;
}
