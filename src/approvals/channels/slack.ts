import type { ServiceContext } from "../../core/context";
import type { Approval } from "../../db/schema";
import { type ApprovalAbout, argumentsText, outcomeText, plainDecider } from "./describe";
import { channelConnection } from "./connection";
import type { SlackMessage } from "./state";

/** The buttons' action ids; each button's `value` is the approval's id. */
export const APPROVE_ACTION = "approval_approve";
export const DENY_ACTION = "approval_deny";

/** A section's text holds 3,000 characters (Block Kit); the arguments get most of it. */
const MAX_SECTION_CHARS = 2900;
const MAX_ARGUMENT_CHARS = 2400;

export type Block = Record<string, unknown>;

/**
 * Posts the request to the channel (chat.postMessage) through the Slack connection: the call, and
 * Approve and Deny buttons whose clicks Slack sends to POST /v1/hooks/slack/interactions.
 * Answers where the message is, for chat.update once it is decided.
 */
export async function postSlackRequest(
  ctx: ServiceContext,
  approval: Approval,
  channel: { connection_id: number; channel: string },
  about: ApprovalAbout,
): Promise<SlackMessage> {
  return postSlackMessage(ctx, channel, {
    text: mrkdwn(`Approval needed: ${about.agent} wants to run ${approval.tool}.`),
    blocks: requestBlocks(approval, about),
  });
}

/**
 * Posts a message (chat.postMessage) through the caller's Slack connection: `text` is what
 * notifications show, `blocks` the message itself. Answers where it is, for a later chat.update.
 */
export async function postSlackMessage(
  ctx: ServiceContext,
  channel: { connection_id: number; channel: string },
  message: { text: string; blocks: Block[] },
): Promise<SlackMessage> {
  const { client } = await channelConnection(ctx, channel.connection_id, ["slack"]);
  const sent = await client.request<{ channel: string; ts: string }>({
    method: "POST",
    path: "/chat.postMessage",
    body: { channel: channel.channel, text: message.text, blocks: message.blocks, unfurl_links: false, unfurl_media: false },
  });
  return { channel: sent.channel, ts: sent.ts };
}

/** Rewrites the posted message once decided (chat.update): the call, who decided what, and no buttons. */
export async function updateSlackRequest(
  ctx: ServiceContext,
  approval: Approval,
  channel: { connection_id: number },
  message: SlackMessage,
  about: ApprovalAbout,
): Promise<void> {
  const { client } = await channelConnection(ctx, channel.connection_id, ["slack"]);
  const outcome = outcomeText(approval, slackDecider);
  await client.request({
    method: "POST",
    path: "/chat.update",
    body: {
      channel: message.channel,
      ts: message.ts,
      text: mrkdwn(`${approval.tool}: ${outcomeText(approval, plainDecider)}`),
      blocks: [...callBlocks(approval, about), { type: "section", text: { type: "mrkdwn", text: cut(`${mark(approval.status)} ${outcome}`) } }],
    },
  });
}

/** The request's message: the call and the two buttons. */
export function requestBlocks(approval: Approval, about: ApprovalAbout): Block[] {
  return [...callBlocks(approval, about), actionsBlock(approval.id)];
}

function callBlocks(approval: Approval, about: ApprovalAbout): Block[] {
  const expires = Math.floor(approval.expiresAt.getTime() / 1000);
  return [
    {
      type: "section",
      text: {
        type: "mrkdwn",
        text: cut(`*Approval needed*\n${mrkdwn(about.agent)} wants to run \`${plain(approval.tool)}\` (${mrkdwn(approval.effect)}).`),
      },
    },
    { type: "section", text: { type: "mrkdwn", text: `\`\`\`${code(argumentsText(approval.arguments, MAX_ARGUMENT_CHARS))}\`\`\`` } },
    {
      type: "context",
      elements: [
        {
          type: "mrkdwn",
          text: `${plain(approval.id)} · expires <!date^${expires}^{date_short_pretty} {time}|${approval.expiresAt.toISOString()}>`,
        },
      ],
    },
  ];
}

function actionsBlock(id: string): Block {
  return {
    type: "actions",
    block_id: `approval:${id}`,
    elements: [
      { type: "button", action_id: APPROVE_ACTION, text: { type: "plain_text", text: "Approve" }, style: "primary", value: id },
      { type: "button", action_id: DENY_ACTION, text: { type: "plain_text", text: "Deny" }, style: "danger", value: id },
    ],
  };
}

/** Slack mentions its own users; other deciders are named in plain words. */
function slackDecider(decidedBy: string): string {
  const slackUser = /^slack:([A-Z0-9]{1,40})$/i.exec(decidedBy);
  return slackUser ? `<@${slackUser[1]}>` : mrkdwn(plainDecider(decidedBy));
}

const mark = (status: Approval["status"]) => (status === "approved" ? ":white_check_mark:" : status === "denied" ? ":no_entry:" : ":hourglass:");

/** mrkdwn reads &, < and > as markup (links, mentions): each is written as its entity. */
export const mrkdwn = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** Inline code cannot hold a backtick. */
const plain = (text: string) => mrkdwn(text.replaceAll("`", "'"));

/** A code block, which three backticks in the text would end early. */
const code = (text: string) => cut(mrkdwn(text).replaceAll("```", "`\u200b`\u200b`"), MAX_SECTION_CHARS - 6);

const cut = (text: string, max = MAX_SECTION_CHARS) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
