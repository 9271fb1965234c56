import { airtable } from "./airtable";
import { brevo } from "./brevo";
import { calendly } from "./calendly";
import { discord } from "./discord";
import { feeds } from "./feeds";
import { gmail } from "./gmail";
import { google } from "./google";
import { googleAnalytics } from "./google-analytics";
import { googleSheets } from "./google-sheets";
import { httpApi } from "./http-api";
import { intercom } from "./intercom";
import { klaviyo } from "./klaviyo";
import { hubspot } from "./hubspot";
import { mailchimp } from "./mailchimp";
import { mailgun } from "./mailgun";
import { mcp } from "./mcp";
import { anthropic, openai } from "./model-providers";
import { notion } from "./notion";
import { oauth2 } from "./oauth2";
import { pipedrive } from "./pipedrive";
import { postmark } from "./postmark";
import { resend } from "./resend";
import { segment } from "./segment";
import { sendgrid } from "./sendgrid";
import { shopify } from "./shopify";
import { slack } from "./slack";
import { stripe } from "./stripe";
import { telegram } from "./telegram";
import { twilio } from "./twilio";
import { typeform } from "./typeform";
import { linkedin } from "./linkedin";
import { x } from "./x";
import { salesforce } from "./salesforce";
import { activecampaign } from "./activecampaign";
import { microsoftTeams } from "./microsoft-teams";
import type { Platform } from "./types";
import { webhook } from "./webhook";
import { zendesk } from "./zendesk";

/** Every platform a connection can be made to, in the order the registry lists them. */
export const PLATFORMS: Platform[] = [
  mcp,
  slack,
  discord,
  telegram,
  resend,
  hubspot,
  mailchimp,
  airtable,
  notion,
  google,
  gmail,
  googleSheets,
  stripe,
  shopify,
  feeds,
  typeform,
  sendgrid,
  mailgun,
  postmark,
  twilio,
  segment,
  googleAnalytics,
  calendly,
  zendesk,
  intercom,
  pipedrive,
  klaviyo,
  linkedin,
  x,
  salesforce,
  activecampaign,
  microsoftTeams,
  brevo,
  webhook,
  httpApi,
  oauth2,
  openai,
  anthropic,
];

const byId = new Map(PLATFORMS.map((platform) => [platform.id, platform]));

export function findPlatform(id: string): Platform | undefined {
  return byId.get(id);
}

/** Platform tool names: `<platform>_<action>`. */
export const platformToolName = (platform: Platform, action: string) => `${platform.id}_${action}`;
