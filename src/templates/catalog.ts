/**
 * The marketplace's built-in templates: real marketing automations over the hub's own tools.
 * `npm run db:seed-templates` writes them into a D1 migration, so the catalog lives in D1.
 */
import { DIGEST_CODE, publishedInTheLastWeek } from "./notion-week";

export interface TemplateDefinition {
  id: string;
  name: string;
  description: string;
  category: "lead-management" | "email-marketing" | "social-media" | "reporting" | "customer-success" | "e-commerce" | "events";
  difficulty: "beginner" | "intermediate" | "advanced";
  required_connections: string[];
  tags: string[];
  featured: boolean;
  trigger_type: "manual" | "schedule" | "webhook" | "poll";
  trigger_config: Record<string, unknown>;
  /** Each variable's default and what it is for. */
  variables: Record<string, { default: unknown; description: string }>;
  steps: unknown[];
}

const tool = (id: string, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id,
  type: "tool",
  tool: name,
  arguments: args,
  ...extra,
});
const when = (id: string, condition: unknown, then: unknown[], otherwise: unknown[] = []) => ({ id, type: "condition", condition, then, else: otherwise });
const retry = { retry: { max_attempts: 3, delay_seconds: 30, backoff: "exponential" } };
const v = (value: unknown, description: string) => ({ default: value, description });
/** The weekly Notion templates' settings: which database, and which of its properties mean "published" and "when". */
const weeklyNotionVariables = {
  database_id: v("", "Notion content database id"),
  status_property: v("Status", "The database's status property: pieces whose value is Published are counted"),
  date_property: v("Publish date", "The database's date property: pieces dated in the last 7 days are counted"),
  channel: v("#content", "Slack channel"),
};

/** Code-step helper: a Stripe amount (smallest currency unit) as a number and a display string; zero-decimal currencies (JPY, KRW…) have no cents. */
const MONEY_CODE = [
  "const ZERO_DECIMAL = ['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf'];",
  "const money = (units, currency) => {",
  "  const zero = ZERO_DECIMAL.includes(String(currency).toLowerCase());",
  "  const value = zero ? units : units / 100;",
  "  return { value, amount: zero ? String(units) : value.toFixed(2), currency: String(currency).toUpperCase() };",
  "};",
].join("\n");
/** Code-step body: the fields of a Stripe charge (`input.charge`) a payment log needs. */
const CHARGE_CODE = [
  "const c = input.charge;",
  "const email = (c.billing_details && c.billing_details.email) || c.receipt_email || '';",
  "return { ...money(c.amount, c.currency), id: c.id, email, date: new Date(c.created * 1000).toISOString().slice(0, 10) };",
].join("\n");

export const TEMPLATES: TemplateDefinition[] = [
  {
    id: "lead-form-to-crm-and-slack",
    name: "Lead form → HubSpot contact → Slack alert",
    description:
      "When a lead form posts to the agent's webhook, create the contact in HubSpot (or update it, for a lead who came back) and tell the sales channel.",
    category: "lead-management",
    difficulty: "beginner",
    required_connections: ["hubspot", "slack"],
    tags: ["lead", "crm", "webhook", "sales"],
    featured: true,
    trigger_type: "webhook",
    trigger_config: {},
    variables: { sales_channel: v("#sales", "Slack channel for new-lead alerts") },
    steps: [
      tool(
        "contact",
        "hubspot_create_contact",
        // A returning lead's email is already a contact: HubSpot's 409 becomes an update, and the alert still goes out.
        {
          email: "{{input.email}}",
          // A lead form may leave these out: the contact is created without them.
          firstname: '{{input.first_name | default: ""}}',
          lastname: '{{input.last_name | default: ""}}',
          company: '{{input.company | default: ""}}',
          if_exists: "update",
        },
        retry,
      ),
      tool("alert", "slack_send_message", {
        channel: "{{sales_channel}}",
        text: 'Lead: {{input.first_name | default: "(no name)"}} {{input.last_name | default: ""}} ({{input.email}}) from {{input.company | default: "an unknown company"}}, HubSpot contact {{steps.contact.result.id}}',
      }),
    ],
  },
  {
    id: "welcome-email-with-follow-up",
    name: "New subscriber → welcome email → follow-up days later",
    description: "Send a welcome email at once and a follow-up follow_up_days days later (3 by default), without holding a worker while waiting.",
    category: "email-marketing",
    difficulty: "beginner",
    required_connections: ["resend"],
    tags: ["onboarding", "email", "drip", "delay"],
    featured: true,
    trigger_type: "webhook",
    trigger_config: {},
    variables: { sender: v("Acme <hello@acme.com>", "From address"), follow_up_days: v(3, "Days between the welcome email and the follow-up") },
    steps: [
      tool(
        "welcome",
        "resend_send_email",
        {
          from: "{{sender}}",
          to: "{{input.email}}",
          subject: 'Welcome aboard, {{input.first_name | default: "there"}}!',
          html: '<p>Thanks for subscribing, {{input.first_name | default: "friend"}}.</p>',
        },
        retry,
      ),
      tool("follow_up_wait", "math_evaluate", { expression: "days * 86400", variables: { days: "{{follow_up_days}}" } }),
      { id: "wait", type: "delay", seconds: "{{steps.follow_up_wait.result.result}}" },
      tool(
        "follow_up",
        "resend_send_email",
        { from: "{{sender}}", to: "{{input.email}}", subject: "Getting started tips", html: "<p>Here are three ways to get value on day one…</p>" },
        retry,
      ),
    ],
  },
  {
    id: "weekly-campaign-report",
    name: "Weekly campaign report to Slack",
    description: "Every Monday, read audience sizes from Mailchimp and post a summary to Slack: each audience's subscribers and the total.",
    category: "reporting",
    difficulty: "intermediate",
    required_connections: ["mailchimp", "slack"],
    tags: ["report", "weekly", "newsletter", "schedule"],
    featured: true,
    trigger_type: "schedule",
    trigger_config: { type: "cron", cron_expression: "0 9 * * 1", timezone: "UTC" },
    variables: { report_channel: v("#marketing", "Where the report goes") },
    steps: [
      tool("audiences", "mailchimp_list_audiences", { count: 100 }),
      {
        // One line per audience, largest first, and the total: what a person reads in Slack.
        id: "summary",
        type: "code",
        input: { audiences: "{{steps.audiences.result.audiences}}", more: '{{steps.audiences.result.next_cursor | default: ""}}' },
        code: [
          "const audiences = [...input.audiences].sort((a, b) => (b.member_count ?? 0) - (a.member_count ?? 0));",
          "const total = audiences.reduce((sum, a) => sum + (a.member_count ?? 0), 0);",
          "const lines = audiences.map((a) => '• ' + a.name + ': ' + (a.member_count ?? 'unknown') + ' subscribers');",
          "const head = 'Weekly audience report: ' + audiences.length + ' audiences, ' + total + ' subscribers in all' + (input.more ? ' (the first 100 audiences)' : '');",
          "return [head, ...lines].join('\\n');",
        ].join("\n"),
      },
      tool("post", "slack_send_message", { channel: "{{report_channel}}", text: "{{steps.summary.result}}" }),
    ],
  },
  {
    id: "scheduled-social-posts-discord",
    name: "Scheduled announcement to Discord",
    description: "Post a prepared announcement to a Discord channel on a schedule.",
    category: "social-media",
    difficulty: "beginner",
    required_connections: ["discord"],
    tags: ["social", "announcement", "schedule", "community"],
    featured: false,
    trigger_type: "schedule",
    trigger_config: { type: "cron", cron_expression: "0 15 * * 2,4", timezone: "UTC" },
    variables: {
      channel_id: v(null, "Discord channel id (required: no default works for everyone)"),
      message: v("New post on our blog this week!", "What to post"),
    },
    steps: [tool("post", "discord_send_message", { channel_id: "{{channel_id}}", content: "{{message}}" }, retry)],
  },
  {
    id: "lead-enrichment-score-routing",
    name: "Lead enrichment with score routing",
    description: "Fetch company data for a lead, score it, and route hot leads to Slack and the rest to a nurture list.",
    category: "lead-management",
    difficulty: "advanced",
    required_connections: ["slack", "mailchimp"],
    tags: ["lead", "scoring", "enrichment", "condition"],
    featured: true,
    trigger_type: "webhook",
    trigger_config: {},
    variables: {
      enrichment_url: v("https://api.example.com/companies", "Your enrichment API"),
      hot_threshold: v(70, "Score from which a lead is hot"),
      hot_channel: v("#sales", "Slack channel that hears about hot leads"),
      nurture_list: v("", "Mailchimp audience id for nurture"),
    },
    steps: [
      tool("company", "http_request", { url: "{{enrichment_url}}", query: { domain: "{{input.domain}}" } }, retry),
      tool("score", "math_evaluate", {
        expression: "min(100, employees / 10 + base)",
        variables: { employees: "{{steps.company.result.body.employees}}", base: "{{input.base_score}}" },
      }),
      when(
        "is_hot",
        { field: "steps.score.result.result", operator: "greater_than_or_equal", value: "{{hot_threshold}}" },
        [tool("notify", "slack_send_message", { channel: "{{hot_channel}}", text: "Hot lead {{input.email}} scored {{steps.score.result.result}}" })],
        [tool("nurture", "mailchimp_upsert_member", { list_id: "{{nurture_list}}", email: "{{input.email}}", tags: ["nurture"] })],
      ),
    ],
  },
  {
    id: "abandoned-cart-reminder",
    name: "Abandoned cart reminder",
    description:
      'Two hours after a cart is abandoned, email a reminder unless the order was completed meanwhile. Post both events to the webhook: {"event": "cart.abandoned", "cart_id", "email", "item_count"} starts the wait, {"event": "order.completed", "cart_id"} records the order (in memory, for 30 days).',
    category: "e-commerce",
    difficulty: "intermediate",
    required_connections: ["resend"],
    tags: ["ecommerce", "cart", "reminder", "email"],
    featured: true,
    trigger_type: "webhook",
    trigger_config: {},
    variables: { sender: v("Shop <orders@shop.example>", "From address") },
    steps: [
      when("order_completed", { field: "input.event", operator: "equals", value: "order.completed" }, [
        tool("record_order", "memory_store", { operation: "set", key: "order:{{input.cart_id}}", value: true, ttl_seconds: 2592000 }),
      ]),
      when("cart_abandoned", { field: "input.event", operator: "equals", value: "cart.abandoned" }, [
        { id: "wait", type: "delay", seconds: 7200 },
        tool("ordered", "memory_store", { operation: "get", key: "order:{{input.cart_id}}" }),
        when("still_open", { field: "steps.ordered.result.found", operator: "equals", value: false }, [
          tool(
            "remind",
            "resend_send_email",
            {
              from: "{{sender}}",
              to: "{{input.email}}",
              subject: "You left something in your cart",
              html: '<p>Your {{input.item_count | default: "saved"}} items are waiting.</p>',
            },
            retry,
          ),
        ]),
      ]),
    ],
  },
  {
    id: "event-registration-follow-up",
    name: "Event registration follow-up",
    description:
      "Confirm a registration by email, add the attendee to an Airtable base, and send a reminder the day before the event (reminder_hours_before hours before input.event_date, an ISO 8601 time at most 60 days ahead; none when the event is closer than that).",
    category: "events",
    difficulty: "intermediate",
    required_connections: ["resend", "airtable"],
    tags: ["event", "webinar", "registration", "reminder"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: {
      sender: v("Events <events@acme.com>", "From address"),
      attendees_table: v("Attendees", "Airtable table"),
      reminder_hours_before: v(24, "How many hours before the event starts the reminder goes out"),
    },
    steps: [
      {
        // When to remind, worked out first: a date that cannot be read fails the run before anything is sent.
        // A delay waits at most 30 days, so the wait is two delays.
        id: "reminder_at",
        type: "code",
        input: { event_date: "{{input.event_date}}", hours_before: "{{reminder_hours_before}}" },
        code: [
          "const starts = Date.parse(input.event_date);",
          "if (Number.isNaN(starts)) throw new Error('event_date is not a date: ' + input.event_date);",
          "const wait = Math.ceil((starts - Number(input.hours_before) * 3600000 - Date.now()) / 1000);",
          "const month = 30 * 86400;",
          "if (wait > 2 * month) throw new Error('event_date is more than 60 days ahead');",
          "return { remind: wait > 0, first: Math.max(0, Math.min(wait, month)), then: Math.max(0, wait - month) };",
        ].join("\n"),
      },
      tool(
        "confirm",
        "resend_send_email",
        { from: "{{sender}}", to: "{{input.email}}", subject: "You're registered for {{input.event_name}}", text: "See you on {{input.event_date}}." },
        retry,
      ),
      tool("record", "airtable_create_record", { table: "{{attendees_table}}", fields: { Email: "{{input.email}}", Event: "{{input.event_name}}" } }),
      when("remind_later", { field: "steps.reminder_at.result.remind", operator: "equals", value: true }, [
        { id: "wait", type: "delay", seconds: "{{steps.reminder_at.result.first}}" },
        { id: "wait_more", type: "delay", seconds: "{{steps.reminder_at.result.then}}" },
        tool(
          "remind",
          "resend_send_email",
          {
            from: "{{sender}}",
            to: "{{input.email}}",
            subject: "Coming up: {{input.event_name}}",
            text: "A reminder that {{input.event_name}} starts on {{input.event_date}}.",
          },
          retry,
        ),
      ]),
    ],
  },
  {
    id: "newsletter-signup-to-mailchimp",
    name: "Newsletter signup → Mailchimp (double opt-in)",
    description: "Add a signup to a Mailchimp audience as pending, so Mailchimp sends the confirmation email.",
    category: "email-marketing",
    difficulty: "beginner",
    required_connections: ["mailchimp"],
    tags: ["newsletter", "signup", "opt-in"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: { list_id: v("", "Mailchimp audience id") },
    steps: [
      tool(
        "subscribe",
        "mailchimp_upsert_member",
        { list_id: "{{list_id}}", email: "{{input.email}}", status: "pending", merge_fields: { FNAME: '{{input.first_name | default: ""}}' } },
        retry,
      ),
    ],
  },
  {
    id: "deduplicated-lead-intake",
    name: "De-duplicated lead intake",
    description: "Skip leads already seen (per-user memory), otherwise create them in HubSpot and remember them for 90 days.",
    category: "lead-management",
    difficulty: "intermediate",
    required_connections: ["hubspot"],
    tags: ["lead", "dedupe", "crm", "memory"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: {},
    steps: [
      tool("seen", "memory_store", { operation: "get", key: "lead:{{input.email}}" }),
      when("is_new", { field: "steps.seen.result.found", operator: "equals", value: false }, [
        // Seen by HubSpot before the memory (or after it forgot): update rather than fail on the 409.
        tool("create", "hubspot_create_contact", { email: "{{input.email}}", firstname: '{{input.first_name | default: ""}}', if_exists: "update" }, retry),
        tool("remember", "memory_store", { operation: "set", key: "lead:{{input.email}}", value: true, ttl_seconds: 7776000 }),
      ]),
    ],
  },
  {
    id: "content-calendar-to-notion",
    name: "Content idea → Notion content calendar",
    description: "File a content idea as a page in a Notion content-calendar database, with its due date worked out.",
    category: "social-media",
    difficulty: "beginner",
    required_connections: ["notion"],
    tags: ["content", "calendar", "notion", "planning"],
    featured: false,
    trigger_type: "manual",
    trigger_config: {},
    variables: { database_id: v("", "Notion database id"), lead_time_days: v(7, "Days until the piece is due") },
    steps: [
      tool("due", "datetime", { operation: "add", amount: "{{lead_time_days}}", unit: "days" }),
      tool("page", "notion_create_page", {
        database_id: "{{database_id}}",
        title: "{{input.title}}",
        content: 'Due {{steps.due.result.iso}}\n\n{{input.notes | default: ""}}',
      }),
    ],
  },
  {
    id: "telegram-channel-broadcast",
    name: "Telegram channel broadcast",
    description: "Broadcast an announcement (input headline and body) to a Telegram channel, formatted with HTML: the headline bold, the text escaped.",
    category: "social-media",
    difficulty: "beginner",
    required_connections: ["telegram"],
    tags: ["telegram", "broadcast", "announcement"],
    featured: false,
    trigger_type: "manual",
    trigger_config: {},
    variables: { chat_id: v("@your_channel", "Channel username or chat id") },
    steps: [
      {
        // Telegram refuses HTML with a bare <, > or &: the announcement's own text is escaped, the bold tag is not.
        id: "escaped",
        type: "code",
        input: { headline: "{{input.headline}}", body: "{{input.body}}" },
        code: [
          "const escape = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');",
          "return { headline: escape(input.headline), body: escape(input.body) };",
        ].join("\n"),
      },
      tool(
        "broadcast",
        "telegram_send_message",
        { chat_id: "{{chat_id}}", text: "<b>{{steps.escaped.result.headline}}</b>\n{{steps.escaped.result.body}}", parse_mode: "HTML" },
        retry,
      ),
    ],
  },
  {
    id: "daily-signups-digest",
    name: "Daily signups digest",
    description:
      "Every morning, count yesterday's signups (UTC) from your API and post the number to Slack. The API answers GET /signups?since=<ISO>&until=<ISO> with a JSON array.",
    category: "reporting",
    difficulty: "intermediate",
    required_connections: ["http", "slack"],
    tags: ["report", "daily", "signups", "schedule"],
    featured: false,
    trigger_type: "schedule",
    trigger_config: { type: "cron", cron_expression: "0 8 * * *", timezone: "UTC" },
    variables: { report_channel: v("#growth", "Slack channel") },
    steps: [
      {
        // The day before the scheduled time (or before now, for a run started by hand), midnight to midnight UTC.
        id: "yesterday",
        type: "code",
        input: { due_at: '{{input.due_at | default: ""}}' },
        code: [
          "const due = input.due_at ? new Date(input.due_at) : new Date();",
          "const until = new Date(Date.UTC(due.getUTCFullYear(), due.getUTCMonth(), due.getUTCDate()));",
          "const since = new Date(until.getTime() - 86400000);",
          "return { since: since.toISOString(), until: until.toISOString(), day: since.toISOString().slice(0, 10) };",
        ].join("\n"),
      },
      tool(
        "signups",
        "http_call",
        { path: "/signups", query: { since: "{{steps.yesterday.result.since}}", until: "{{steps.yesterday.result.until}}" } },
        retry,
      ),
      tool("count", "json_transform", { operation: "count", data: "{{steps.signups.result.body}}" }),
      tool("post", "slack_send_message", { channel: "{{report_channel}}", text: "Signups on {{steps.yesterday.result.day}}: {{steps.count.result.value}}" }),
    ],
  },
  {
    id: "nps-detractor-alert",
    name: "NPS detractor alert",
    description: "When an NPS response is 6 or lower, alert customer success in Slack and log it in Airtable.",
    category: "customer-success",
    difficulty: "intermediate",
    required_connections: ["slack", "airtable"],
    tags: ["nps", "feedback", "churn", "alert"],
    featured: true,
    trigger_type: "webhook",
    trigger_config: {},
    variables: { cs_channel: v("#customer-success", "Slack channel"), feedback_table: v("Feedback", "Airtable table") },
    steps: [
      tool("log", "airtable_create_record", {
        table: "{{feedback_table}}",
        fields: { Email: "{{input.email}}", Score: "{{input.score}}", Comment: '{{input.comment | default: ""}}' },
      }),
      when("detractor", { field: "input.score", operator: "less_than_or_equal", value: 6 }, [
        tool("alert", "slack_send_message", {
          channel: "{{cs_channel}}",
          text: 'Detractor ({{input.score}}): {{input.email}} — {{input.comment | default: "(no comment)"}}',
        }),
      ]),
    ],
  },
  {
    id: "trial-expiry-nudge",
    name: "Trial expiry nudge",
    description:
      'Five days before a trial ends (your app posts {"email", "plan_interest"} to the webhook then), email the user an upgrade offer; VIP accounts (plan_interest enterprise or business) also get a Slack heads-up to their owner.',
    category: "customer-success",
    difficulty: "intermediate",
    required_connections: ["resend", "slack"],
    tags: ["trial", "conversion", "upsell", "email"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: { sender: v("Acme <team@acme.com>", "From address"), vip_channel: v("#sales", "Slack channel told about VIP trials ending") },
    steps: [
      tool(
        "offer",
        "resend_send_email",
        { from: "{{sender}}", to: "{{input.email}}", subject: "Your trial ends in 5 days", html: "<p>Upgrade now and keep everything you built.</p>" },
        retry,
      ),
      when("vip", { field: "input.plan_interest", operator: "in", value: ["enterprise", "business"] }, [
        tool("owner", "slack_send_message", { channel: "{{vip_channel}}", text: "VIP trial ending: {{input.email}} ({{input.plan_interest}})" }),
      ]),
    ],
  },
  {
    id: "webinar-attendance-sync",
    name: "Webinar attendees → CRM",
    description: "After a webinar, find each attendee in HubSpot and mark them as having attended.",
    category: "events",
    difficulty: "advanced",
    required_connections: ["hubspot"],
    tags: ["webinar", "crm", "attendance"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: {},
    steps: [
      tool("find", "hubspot_find_contact", { email: "{{input.email}}" }),
      when(
        "exists",
        { field: "steps.find.result.found", operator: "equals", value: true },
        [tool("mark", "hubspot_update_contact", { contact_id: "{{steps.find.result.id}}", properties: { last_webinar: "{{input.webinar_name}}" } }, retry)],
        // Search can lag behind a contact created moments ago: its 409 becomes an update.
        [
          tool(
            "create",
            "hubspot_create_contact",
            { email: "{{input.email}}", properties: { last_webinar: "{{input.webinar_name}}" }, if_exists: "update" },
            retry,
          ),
        ],
      ),
    ],
  },
  {
    id: "review-request-after-purchase",
    name: "Review request after purchase",
    description: "A week after a Shopify order is fulfilled, ask the customer for a review.",
    category: "e-commerce",
    difficulty: "beginner",
    required_connections: ["resend"],
    tags: ["reviews", "ecommerce", "email", "delay", "shopify"],
    featured: false,
    // Shopify's orders/fulfilled webhook, verified Shopify's way: the order is `input.event`.
    trigger_type: "webhook",
    trigger_config: { verify: "shopify", event_types: ["orders/fulfilled"] },
    variables: { sender: v("Shop <hello@shop.example>", "From address"), review_url: v("https://shop.example/review", "Review page") },
    steps: [
      { id: "wait", type: "delay", seconds: 604800 },
      tool(
        "ask",
        "resend_send_email",
        {
          from: "{{sender}}",
          to: "{{input.event.email}}",
          subject: "How was your order {{input.event.name}}?",
          html: '<p><a href="{{review_url}}?order={{input.event.id}}">Leave a review</a></p>',
        },
        retry,
      ),
    ],
  },
  {
    id: "high-value-order-alert",
    name: "High-value order alert",
    description: "When a Shopify order's total passes a threshold, alert the team in Slack.",
    category: "e-commerce",
    difficulty: "beginner",
    required_connections: ["slack"],
    tags: ["orders", "alert", "sales", "shopify"],
    featured: false,
    // Shopify's orders/create webhook, verified Shopify's way: the order is `input.event`.
    trigger_type: "webhook",
    trigger_config: { verify: "shopify", event_types: ["orders/create"] },
    variables: { threshold: v(500, "Order total that triggers the alert"), channel: v("#orders", "Slack channel") },
    steps: [
      when("big", { field: "input.event.total_price", operator: "greater_than", value: "{{threshold}}" }, [
        tool("alert", "slack_send_message", {
          channel: "{{channel}}",
          text: "High-value order {{input.event.name}}: {{input.event.total_price}} {{input.event.currency}} from {{input.event.email}}",
        }),
      ]),
    ],
  },
  {
    id: "weekly-content-round-up",
    name: "Weekly content round-up to Notion and Slack",
    description:
      "Every Friday, list the pieces the Notion content calendar shows as published in the last 7 days (all of them, linked by title) and share the round-up in Slack.",
    category: "reporting",
    difficulty: "intermediate",
    required_connections: ["notion", "slack"],
    tags: ["content", "weekly", "report", "notion"],
    featured: false,
    trigger_type: "schedule",
    trigger_config: { type: "cron", cron_expression: "0 16 * * 5", timezone: "UTC" },
    variables: weeklyNotionVariables,
    steps: [
      ...publishedInTheLastWeek(),
      { id: "digest", type: "code", code: DIGEST_CODE },
      when(
        "any",
        { field: "steps.digest.result.count", operator: "greater_than", value: 0 },
        [
          tool("share", "slack_send_message", {
            channel: "{{channel}}",
            text: "Published in the last 7 days ({{steps.digest.result.count}}):\n{{steps.digest.result.slack}}",
          }),
        ],
        [tool("share_none", "slack_send_message", { channel: "{{channel}}", text: "Nothing was published in the last 7 days." })],
      ),
    ],
  },
  {
    id: "partner-webhook-relay",
    name: "Signed partner webhook relay",
    description: "Forward events (input: email, score) scoring at least min_score to a partner's endpoint as signed lead.qualified webhooks.",
    category: "lead-management",
    difficulty: "advanced",
    required_connections: ["webhook"],
    tags: ["webhook", "partners", "integration"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: { min_score: v(50, "Only relay events scoring at least this") },
    steps: [
      when("qualified", { field: "input.score", operator: "greater_than_or_equal", value: "{{min_score}}" }, [
        tool("relay", "webhook_send", { event: "lead.qualified", data: { email: "{{input.email}}", score: "{{input.score}}" } }, retry),
      ]),
    ],
  },
  {
    id: "birthday-discount",
    name: "Birthday discount email",
    description: "On a customer's birthday (input: email, first_name optional), email them a personal code for discount_percent off.",
    category: "email-marketing",
    difficulty: "beginner",
    required_connections: ["resend"],
    tags: ["birthday", "discount", "loyalty", "email"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: { sender: v("Shop <hello@shop.example>", "From address"), discount_percent: v(15, "Discount") },
    steps: [
      tool("code", "uuid_generate", {}),
      tool(
        "email",
        "resend_send_email",
        {
          from: "{{sender}}",
          to: "{{input.email}}",
          subject: 'Happy birthday, {{input.first_name | default: "friend"}}!',
          html: "<p>{{discount_percent}}% off with code {{steps.code.result.uuid}}</p>",
        },
        retry,
      ),
    ],
  },
  {
    id: "churn-risk-check",
    name: "Churn-risk check",
    description:
      "Flag accounts (input: account, usage_this_month, usage_last_month, owner optional) whose usage fell below a share of last month's (half, by default), and alert their owner in the customer-success channel.",
    category: "customer-success",
    difficulty: "advanced",
    required_connections: ["slack"],
    tags: ["churn", "usage", "health", "alert"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: {
      drop_ratio: v(0.5, "Usage ratio (this month / last month) below which an account is at risk"),
      channel: v("#customer-success", "Slack channel for churn alerts"),
    },
    steps: [
      tool("ratio", "math_evaluate", {
        expression: "current / max(previous, 1)",
        variables: { current: "{{input.usage_this_month}}", previous: "{{input.usage_last_month}}" },
      }),
      when("at_risk", { field: "steps.ratio.result.result", operator: "less_than", value: "{{drop_ratio}}" }, [
        tool("alert", "slack_send_message", {
          channel: "{{channel}}",
          text: 'Churn risk: {{input.account}} usage is at {{steps.ratio.result.result}} of last month. Owner: {{input.owner | default: "unassigned"}}',
        }),
      ]),
    ],
  },
  {
    id: "lead-to-airtable-crm",
    name: "Lead → Airtable CRM",
    description: "Store every new lead (input: email; name and source optional) as a record in an Airtable table.",
    category: "lead-management",
    difficulty: "beginner",
    required_connections: ["airtable"],
    tags: ["lead", "airtable", "crm"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: { table: v("Leads", "Airtable table") },
    steps: [
      tool(
        "store",
        "airtable_create_record",
        {
          table: "{{table}}",
          fields: { Name: '{{input.name | default: ""}}', Email: "{{input.email}}", Source: '{{input.source | default: "unknown"}}' },
          typecast: true,
        },
        retry,
      ),
    ],
  },
  {
    id: "campaign-launch-checklist",
    name: "Campaign launch announcement",
    description: "On launch day (input: campaign, url), announce a campaign in Slack, then Discord, then Telegram; a channel that refuses stops the run there.",
    category: "social-media",
    difficulty: "intermediate",
    required_connections: ["slack", "discord", "telegram"],
    tags: ["launch", "campaign", "announcement", "multi-channel"],
    featured: true,
    trigger_type: "manual",
    trigger_config: {},
    variables: {
      slack_channel: v("#launches", "Slack channel"),
      discord_channel_id: v("", "Discord channel id"),
      telegram_chat_id: v("@your_channel", "Telegram chat"),
    },
    steps: [
      tool("slack", "slack_send_message", { channel: "{{slack_channel}}", text: ":rocket: {{input.campaign}} is live: {{input.url}}" }),
      tool("discord", "discord_send_message", { channel_id: "{{discord_channel_id}}", content: "{{input.campaign}} is live: {{input.url}}" }),
      tool("telegram", "telegram_send_message", { chat_id: "{{telegram_chat_id}}", text: "{{input.campaign}} is live: {{input.url}}" }),
    ],
  },
  {
    id: "support-ticket-triage",
    name: "Support ticket triage",
    description:
      "Route urgent tickets (input: id, subject, priority; urgent when the subject says outage, down, urgent or security, or priority is high) to an on-call Slack channel and everything else to the support queue.",
    category: "customer-success",
    difficulty: "intermediate",
    required_connections: ["slack"],
    tags: ["support", "triage", "routing"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: { urgent_channel: v("#on-call", "Slack channel for urgent tickets"), queue_channel: v("#support", "Slack channel for the other tickets") },
    steps: [
      when(
        "urgent",
        {
          or: [
            { field: "input.subject", operator: "matches", value: "(?i)(outage|down|urgent|security)" },
            { field: "input.priority", operator: "equals", value: "high" },
          ],
        },
        [tool("page", "slack_send_message", { channel: "{{urgent_channel}}", text: "URGENT ticket {{input.id}}: {{input.subject}}" })],
        [tool("queue", "slack_send_message", { channel: "{{queue_channel}}", text: "New ticket {{input.id}}: {{input.subject}}" })],
      ),
    ],
  },
  {
    id: "monthly-audience-growth",
    name: "Monthly audience growth report",
    description: "On the first of each month, record each Mailchimp audience's size as a row in Airtable (date, audience, members) for trend reports.",
    category: "reporting",
    difficulty: "intermediate",
    required_connections: ["mailchimp", "airtable"],
    tags: ["report", "monthly", "newsletter", "growth"],
    featured: false,
    trigger_type: "schedule",
    trigger_config: { type: "cron", cron_expression: "0 7 1 * *", timezone: "UTC" },
    variables: {
      table: v("Audience growth", "Airtable table that gets one record per audience each month: Date (date), Audience (text), Members (number)"),
    },
    steps: [
      // Mailchimp's largest page: an account's audiences fit in one.
      tool("audiences", "mailchimp_list_audiences", { count: 1000 }),
      tool("today", "datetime", { operation: "now" }),
      // One row per audience and month, so Airtable can chart each audience's size over time.
      {
        id: "each_audience",
        type: "for_each",
        items: "{{steps.audiences.result.audiences}}",
        as: "audience",
        steps: [
          tool(
            "record",
            "airtable_create_record",
            {
              table: "{{table}}",
              fields: { Date: "{{steps.today.result.iso}}", Audience: "{{audience.name}}", Members: "{{audience.member_count}}" },
              typecast: true,
            },
            retry,
          ),
        ],
      },
    ],
  },
  {
    id: "post-event-survey",
    name: "Post-event survey",
    description: "The day after an event (input: event_id, event_name, email), email the attendee a survey link, once per attendee and event.",
    category: "events",
    difficulty: "beginner",
    required_connections: ["resend"],
    tags: ["event", "survey", "feedback", "email"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: { sender: v("Events <events@acme.com>", "From address"), survey_url: v("https://forms.example/survey", "Survey link") },
    steps: [
      { id: "wait", type: "delay", seconds: 86400 },
      tool("sent", "memory_store", { operation: "get", key: "survey:{{input.event_id}}:{{input.email}}" }),
      when("not_sent", { field: "steps.sent.result.found", operator: "equals", value: false }, [
        tool(
          "email",
          "resend_send_email",
          {
            from: "{{sender}}",
            to: "{{input.email}}",
            subject: "How was {{input.event_name}}?",
            html: '<p><a href="{{survey_url}}">Two minutes of feedback</a></p>',
          },
          retry,
        ),
        tool("mark", "memory_store", { operation: "set", key: "survey:{{input.event_id}}:{{input.email}}", value: true, ttl_seconds: 2592000 }),
      ]),
    ],
  },
  {
    id: "campaign-approval-before-send",
    name: "AI-drafted campaign → approval → send",
    description:
      "A model drafts the campaign email (input: brief, audience, to, subject), the draft goes to reviewers in Slack, and nothing is sent until someone approves it (POST /v1/executions/{id}/events with campaign.approved). No answer within two days fails the run.",
    category: "email-marketing",
    difficulty: "intermediate",
    required_connections: ["openai", "slack", "resend"],
    tags: ["campaign", "approval", "ai", "email", "human-in-the-loop"],
    featured: true,
    trigger_type: "manual",
    trigger_config: {},
    variables: {
      review_channel: v("#campaign-review", "Slack channel where drafts are reviewed"),
      sender: v("Marketing <news@acme.com>", "From address"),
    },
    steps: [
      {
        id: "draft",
        type: "llm",
        // The template requires an openai connection: its model answers.
        provider: "openai",
        system: "You write concise, friendly marketing emails in plain HTML paragraphs.",
        prompt: "Write the email for this campaign: {{input.brief}}. Audience: {{input.audience}}.",
      },
      tool("review", "slack_send_message", {
        channel: "{{review_channel}}",
        text: "Draft for {{input.audience}} (run {{execution.id}}) is waiting for approval:\n{{steps.draft.result.text}}",
      }),
      { id: "approve", type: "wait_for_event", event: "campaign.approved", timeout_seconds: 172800, on_timeout: "fail" },
      tool("send", "resend_send_email", { from: "{{sender}}", to: "{{input.to}}", subject: "{{input.subject}}", html: "{{steps.draft.result.text}}" }, retry),
    ],
  },
  {
    id: "personal-outreach-for-each-lead",
    name: "Personal outreach to a list of leads",
    description:
      "For each lead in the input (leads: [{name, title, company, email}]), a model writes a short personal opening line and the email goes out, three leads at a time.",
    category: "lead-management",
    difficulty: "intermediate",
    required_connections: ["openai", "resend"],
    tags: ["lead", "outreach", "ai", "loop", "email"],
    featured: true,
    trigger_type: "manual",
    trigger_config: {},
    variables: { sender: v("Sales <sales@acme.com>", "From address"), offer: v("a 30-day trial", "What the email offers") },
    steps: [
      {
        id: "each_lead",
        type: "for_each",
        items: "{{input.leads}}",
        as: "lead",
        concurrency: 3,
        steps: [
          {
            id: "opener",
            type: "llm",
            // The template requires an openai connection: its model answers.
            provider: "openai",
            prompt: "One friendly opening sentence for {{lead.name}}, {{lead.title}} at {{lead.company}}, offering {{offer}}.",
          },
          tool(
            "email",
            "resend_send_email",
            { from: "{{sender}}", to: "{{lead.email}}", subject: "{{lead.company}} + Acme", html: "<p>{{steps.opener.result.text}}</p>" },
            retry,
          ),
        ],
      },
    ],
  },
  {
    id: "subject-line-ideas-vote",
    name: "Subject-line ideas for a team vote",
    description:
      "A model proposes three subject lines for the input's topic as checked JSON, and each one is posted to Slack as a numbered option for the team to vote on with reactions.",
    category: "email-marketing",
    difficulty: "beginner",
    required_connections: ["openai", "slack"],
    tags: ["subject line", "ai", "slack", "loop"],
    featured: false,
    trigger_type: "manual",
    trigger_config: {},
    variables: { channel: v("#marketing", "Slack channel for the vote") },
    steps: [
      {
        id: "ideas",
        type: "llm",
        // The template requires an openai connection: its model answers.
        provider: "openai",
        prompt: "Three email subject lines for: {{input.topic}}.",
        output: "json",
        schema: { type: "object", required: ["subjects"], properties: { subjects: { type: "array", minItems: 3, maxItems: 3, items: { type: "string" } } } },
        retry: { max_attempts: 2, delay_seconds: 0 },
      },
      // Options are numbered from 1 for the vote (a loop's index counts from 0).
      {
        id: "options",
        type: "code",
        code: "return input.steps.ideas.result.json.subjects.map((subject, i) => ({ number: i + 1, subject }));",
      },
      {
        id: "post_each",
        type: "for_each",
        items: "{{steps.options.result}}",
        as: "option",
        steps: [tool("post", "slack_send_message", { channel: "{{channel}}", text: "Option {{option.number}}: {{option.subject}}" })],
      },
    ],
  },
  {
    id: "vip-discount-manager-approval",
    name: "VIP discount with manager approval",
    description:
      "A requested discount (input: email, percent) above a threshold waits for a manager's approval (discount.approved, payload {percent}); without an answer in a day the run continues with the standard discount.",
    category: "e-commerce",
    difficulty: "advanced",
    required_connections: ["slack", "resend"],
    tags: ["discount", "approval", "vip", "human-in-the-loop"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: {
      threshold: v(20, "Discounts above this percent need approval"),
      standard_percent: v(10, "Discount used when nobody answers"),
      manager_channel: v("#managers", "Slack channel where managers approve"),
      sender: v("Shop <shop@acme.com>", "From address"),
    },
    steps: [
      when(
        "needs_approval",
        { field: "input.percent", operator: "greater_than", value: "{{threshold}}" },
        [
          tool("ask", "slack_send_message", {
            channel: "{{manager_channel}}",
            text: "Approve {{input.percent}}% for {{input.email}}? Run {{execution.id}} waits for discount.approved.",
          }),
          { id: "approve", type: "wait_for_event", event: "discount.approved", timeout_seconds: 86400, on_timeout: "continue" },
          // Approved: the percent the manager gave; no answer in a day: the standard discount.
          when(
            "approved",
            { field: "steps.approve.status", operator: "equals", value: "succeeded" },
            [{ id: "granted", type: "set", values: { percent: "{{steps.approve.result.percent}}" } }],
            [{ id: "standard", type: "set", values: { percent: "{{standard_percent}}" } }],
          ),
        ],
        // At or under the threshold the discount asked for needs nobody.
        [{ id: "as_asked", type: "set", values: { percent: "{{input.percent}}" } }],
      ),
      tool(
        "email",
        "resend_send_email",
        { from: "{{sender}}", to: "{{input.email}}", subject: "Your VIP discount", html: "<p>{{percent}}% off your next order.</p>" },
        retry,
      ),
    ],
  },
  {
    id: "weekly-report-ai-summary",
    name: "Weekly content report with an AI summary",
    description:
      "Every Monday, read the pieces the Notion content calendar shows as published in the last 7 days (all of them), have a model summarise them, and post the summary to Slack.",
    category: "reporting",
    difficulty: "intermediate",
    required_connections: ["notion", "openai", "slack"],
    tags: ["report", "weekly", "ai", "summary", "notion"],
    featured: false,
    trigger_type: "schedule",
    trigger_config: { type: "cron", cron_expression: "0 9 * * 1" },
    variables: weeklyNotionVariables,
    steps: [
      ...publishedInTheLastWeek(),
      { id: "digest", type: "code", code: DIGEST_CODE },
      when(
        "any",
        { field: "steps.digest.result.count", operator: "greater_than", value: 0 },
        [
          {
            id: "summary",
            type: "llm",
            // The template requires an openai connection: its model answers.
            provider: "openai",
            system: "You summarise marketing content for a busy team in five bullet points.",
            prompt: "Summarise the {{steps.digest.result.count}} pieces published in the last 7 days:\n{{steps.digest.result.text}}",
          },
          tool("post", "slack_send_message", { channel: "{{channel}}", text: "The last 7 days in content:\n{{steps.summary.result.text}}" }),
        ],
        [tool("post_none", "slack_send_message", { channel: "{{channel}}", text: "Nothing was published in the last 7 days." })],
      ),
    ],
  },
  // Templates on the payment, messaging and email platforms (Stripe, Google Sheets, Twilio, SendGrid, Postmark, Mailgun).
  {
    id: "stripe-payment-to-sheet-and-slack",
    name: "Stripe payment → Google Sheets row + Slack",
    description:
      "When Stripe sends charge.succeeded, append a row (date, email, amount, currency, charge id) to the sheet range and, for payments of at least slack_min_amount, post the payment to Slack. Reads the charge's amount, currency, created, billing_details.email (or receipt_email) and id.",
    category: "e-commerce",
    difficulty: "beginner",
    required_connections: ["google_sheets", "slack"],
    tags: ["stripe", "payments", "google sheets", "slack", "webhook"],
    featured: false,
    // Stripe's webhook, verified Stripe's way: the event is `input.event`, the charge its data.object.
    trigger_type: "webhook",
    trigger_config: { verify: "stripe", event_types: ["charge.succeeded"] },
    variables: {
      spreadsheet_id: v(null, "The spreadsheet's id (from its URL, /spreadsheets/d/<id>/); required"),
      range: v("Payments!A:E", "Sheet and columns the row is appended to"),
      channel: v("#sales", "Slack channel"),
      slack_min_amount: v(0, "Payments below this amount (in the currency's units) are logged in the sheet only"),
    },
    steps: [
      { id: "payment", type: "code", input: { charge: "{{input.event.data.object}}" }, code: `${MONEY_CODE}\n${CHARGE_CODE}` },
      tool(
        "row",
        "google_sheets_append_rows",
        {
          spreadsheet_id: "{{spreadsheet_id}}",
          range: "{{range}}",
          rows: [
            [
              "{{steps.payment.result.date}}",
              "{{steps.payment.result.email}}",
              "{{steps.payment.result.amount}}",
              "{{steps.payment.result.currency}}",
              "{{steps.payment.result.id}}",
            ],
          ],
        },
        retry,
      ),
      when("big_enough", { field: "steps.payment.result.value", operator: "greater_than_or_equal", value: "{{slack_min_amount}}" }, [
        tool("post", "slack_send_message", {
          channel: "{{channel}}",
          text: "Payment: {{steps.payment.result.amount}} {{steps.payment.result.currency}} from {{steps.payment.result.email}} ({{steps.payment.result.id}})",
        }),
      ]),
    ],
  },
  {
    id: "stripe-new-customer-welcome-email",
    name: "New Stripe customer → SendGrid welcome email",
    description:
      "When Stripe sends customer.created for a customer with an email, send them a welcome email through SendGrid from the sender, greeting them by the customer's name. Reads the customer's email and name; a customer without an email gets nothing.",
    category: "customer-success",
    difficulty: "beginner",
    required_connections: ["sendgrid"],
    tags: ["stripe", "onboarding", "email", "sendgrid", "webhook"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: { verify: "stripe", event_types: ["customer.created"] },
    variables: {
      sender: v("hello@acme.com", "A verified SendGrid sender address"),
      sender_name: v("Acme", "The name the email comes from"),
      company: v("Acme", "Your company's name, in the subject and the text"),
      help_url: v("https://acme.com/help", "Where the email sends new customers to get started"),
    },
    steps: [
      when("has_email", { field: "input.event.data.object.email", operator: "is_not_empty" }, [
        tool(
          "welcome",
          "sendgrid_send_email",
          {
            from: "{{sender}}",
            from_name: "{{sender_name}}",
            to: [{ email: "{{input.event.data.object.email}}" }],
            subject: "Welcome to {{company}}",
            html: '<p>Hi {{input.event.data.object.name | default: "there"}}, thanks for choosing {{company}}.</p><p><a href="{{help_url}}">Get started here</a>.</p>',
            categories: ["welcome"],
          },
          retry,
        ),
      ]),
    ],
  },
  {
    id: "failed-payment-sms-and-slack",
    name: "Failed Stripe invoice → Slack alert + Twilio SMS",
    description:
      "When Stripe sends invoice.payment_failed, tell the billing channel (invoice number, customer email, amount, attempt) and, when the invoice has the customer's phone, text them the invoice's payment link with Twilio from the connection's default number. Reads the invoice's number, customer_email, customer_phone, amount_due, currency, attempt_count and hosted_invoice_url.",
    category: "customer-success",
    difficulty: "intermediate",
    required_connections: ["slack", "twilio"],
    tags: ["stripe", "dunning", "sms", "twilio", "slack", "webhook"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: { verify: "stripe", event_types: ["invoice.payment_failed"] },
    variables: { channel: v("#billing", "Slack channel for failed payments"), company: v("Acme", "Your company's name, at the start of the SMS") },
    steps: [
      {
        id: "due",
        type: "code",
        input: { invoice: "{{input.event.data.object}}" },
        code: `${MONEY_CODE}\nreturn money(input.invoice.amount_due, input.invoice.currency);`,
      },
      tool("alert", "slack_send_message", {
        channel: "{{channel}}",
        text: "Payment failed: invoice {{input.event.data.object.number}} for {{input.event.data.object.customer_email}}, {{steps.due.result.amount}} {{steps.due.result.currency}} (attempt {{input.event.data.object.attempt_count}})",
      }),
      when("has_phone", { field: "input.event.data.object.customer_phone", operator: "is_not_empty" }, [
        tool("sms", "twilio_send_sms", {
          to: "{{input.event.data.object.customer_phone}}",
          body: "{{company}}: your payment of {{steps.due.result.amount}} {{steps.due.result.currency}} did not go through. Update your card here: {{input.event.data.object.hosted_invoice_url}}",
        }),
      ]),
    ],
  },
  {
    id: "typeform-lead-to-hubspot-and-mailgun",
    name: "Typeform lead → HubSpot contact + Mailgun email",
    description:
      "When Typeform sends a form response, read the answers whose field refs are email_ref, first_name_ref and company_ref, create (or update) the HubSpot contact as a lead, and email the lead a thank-you through Mailgun from the connection's domain. A response without an email answer fails the run.",
    category: "lead-management",
    difficulty: "intermediate",
    required_connections: ["hubspot", "mailgun"],
    tags: ["typeform", "lead", "crm", "email", "mailgun", "webhook"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: { verify: "typeform", event_types: ["form_response"] },
    variables: {
      email_ref: v("email", "The ref of the form's email question"),
      first_name_ref: v("first_name", "The ref of the form's first-name question"),
      company_ref: v("company", "The ref of the form's company question"),
      sender: v("Acme <hello@mg.acme.com>", "From address on the Mailgun domain"),
      subject: v("Thanks for reaching out", "Subject of the thank-you email"),
    },
    steps: [
      {
        id: "lead",
        type: "code",
        input: {
          answers: "{{input.event.form_response.answers}}",
          refs: { email: "{{email_ref}}", first_name: "{{first_name_ref}}", company: "{{company_ref}}" },
        },
        code: [
          // Typeform keeps each answer's value under its type's name (email, text, phone_number, choice…).
          "const value = (ref) => { const a = (input.answers || []).find((x) => x.field && x.field.ref === ref); if (!a) return ''; const v = a[a.type]; return v && typeof v === 'object' ? (v.label ?? '') : String(v ?? ''); };",
          "const lead = { email: value(input.refs.email), first_name: value(input.refs.first_name), company: value(input.refs.company) };",
          "if (!lead.email) throw new Error('The response has no answer to the question ' + input.refs.email);",
          "return lead;",
        ].join("\n"),
      },
      tool(
        "contact",
        "hubspot_create_contact",
        {
          email: "{{steps.lead.result.email}}",
          firstname: "{{steps.lead.result.first_name}}",
          company: "{{steps.lead.result.company}}",
          lifecyclestage: "lead",
          if_exists: "update",
        },
        retry,
      ),
      tool(
        "thanks",
        "mailgun_send_email",
        {
          from: "{{sender}}",
          to: "{{steps.lead.result.email}}",
          subject: "{{subject}}",
          text: 'Hi {{steps.lead.result.first_name | default: "there"}}, thanks for your message. We will get back to you within one business day.',
          tags: ["typeform-lead"],
        },
        retry,
      ),
    ],
  },
  {
    id: "daily-stripe-revenue-to-slack",
    name: "Daily Stripe revenue summary to Slack",
    description:
      "Every morning, read the 100 newest Stripe payments and post yesterday's (UTC) revenue to Slack: the total per currency and the number of payments, counting paid, succeeded payments that were not refunded.",
    category: "reporting",
    difficulty: "intermediate",
    required_connections: ["stripe", "slack"],
    tags: ["stripe", "revenue", "report", "daily", "schedule"],
    featured: false,
    trigger_type: "schedule",
    trigger_config: { type: "cron", cron_expression: "0 8 * * *", timezone: "UTC" },
    variables: { channel: v("#revenue", "Slack channel") },
    steps: [
      tool("charges", "stripe_list_charges", { limit: 100 }, retry),
      {
        id: "summary",
        type: "code",
        input: { charges: "{{steps.charges.result.charges}}", due_at: '{{input.due_at | default: ""}}' },
        code: [
          MONEY_CODE,
          // The day before the scheduled time (or before now, for a run started by hand), midnight to midnight UTC.
          "const due = input.due_at ? new Date(input.due_at) : new Date();",
          "const until = Date.UTC(due.getUTCFullYear(), due.getUTCMonth(), due.getUTCDate()) / 1000;",
          "const since = until - 86400;",
          "const day = new Date(since * 1000).toISOString().slice(0, 10);",
          "const paid = input.charges.filter((c) => c.created >= since && c.created < until && c.paid && c.status === 'succeeded' && !c.refunded);",
          "const totals = {};",
          "for (const c of paid) totals[c.currency] = (totals[c.currency] || 0) + c.amount;",
          "const parts = Object.keys(totals).sort().map((cur) => { const m = money(totals[cur], cur); return m.amount + ' ' + m.currency; });",
          "return { day, count: paid.length, text: parts.length ? parts.join(', ') + ' from ' + paid.length + ' payment(s)' : 'no payments' };",
        ].join("\n"),
      },
      tool("post", "slack_send_message", { channel: "{{channel}}", text: "Stripe revenue on {{steps.summary.result.day}}: {{steps.summary.result.text}}" }),
    ],
  },
  {
    id: "weekly-postmark-bounce-report",
    name: "Weekly Postmark bounce report to Slack",
    description:
      "Every Monday, read Postmark's bounces of bounce_type (HardBounce by default) and post those of the last 7 days to Slack: how many, and each address with Postmark's reason (at most 20 listed).",
    category: "reporting",
    difficulty: "beginner",
    required_connections: ["postmark", "slack"],
    tags: ["postmark", "bounces", "deliverability", "report", "weekly"],
    featured: false,
    trigger_type: "schedule",
    trigger_config: { type: "cron", cron_expression: "0 9 * * 1", timezone: "UTC" },
    variables: {
      bounce_type: v("HardBounce", "Postmark's bounce type to report: HardBounce, SoftBounce, SpamComplaint…"),
      channel: v("#email-ops", "Slack channel"),
    },
    steps: [
      tool("bounces", "postmark_list_bounces", { type: "{{bounce_type}}", limit: 500 }, retry),
      {
        id: "report",
        type: "code",
        input: { bounces: "{{steps.bounces.result.bounces}}", due_at: '{{input.due_at | default: ""}}', type: "{{bounce_type}}" },
        code: [
          "const until = input.due_at ? Date.parse(input.due_at) : Date.now();",
          "const recent = input.bounces.filter((b) => { const at = Date.parse(b.bounced_at); return at >= until - 7 * 86400000 && at < until; });",
          "const lines = recent.slice(0, 20).map((b) => '• ' + b.email + ': ' + (b.description ?? b.type));",
          "if (recent.length > 20) lines.push('…and ' + (recent.length - 20) + ' more');",
          "return { text: recent.length ? [recent.length + ' ' + input.type + ' bounce(s) in the last 7 days:', ...lines].join('\\n') : 'No ' + input.type + ' bounces in the last 7 days.' };",
        ].join("\n"),
      },
      tool("post", "slack_send_message", { channel: "{{channel}}", text: "{{steps.report.result.text}}" }),
    ],
  },
  {
    id: "daily-mailgun-failed-deliveries",
    name: "Daily Mailgun failed deliveries to Slack",
    description:
      "Every morning, read Mailgun's failed-delivery events of the connection's domain and post those of the last 24 hours to Slack with each recipient and reason (at most 20 listed); with permanent_only, temporary failures Mailgun will retry are left out.",
    category: "reporting",
    difficulty: "beginner",
    required_connections: ["mailgun", "slack"],
    tags: ["mailgun", "deliverability", "report", "daily"],
    featured: false,
    trigger_type: "schedule",
    trigger_config: { type: "cron", cron_expression: "0 7 * * *", timezone: "UTC" },
    variables: {
      permanent_only: v(true, "Only failures Mailgun gave up on (severity permanent)"),
      channel: v("#email-ops", "Slack channel"),
    },
    steps: [
      tool("failed", "mailgun_list_events", { event: "failed", limit: 300 }, retry),
      {
        id: "report",
        type: "code",
        input: { events: "{{steps.failed.result.events}}", due_at: '{{input.due_at | default: ""}}', permanent_only: "{{permanent_only}}" },
        code: [
          "const until = (input.due_at ? Date.parse(input.due_at) : Date.now()) / 1000;",
          "const wanted = input.events.filter((e) => e.timestamp >= until - 86400 && e.timestamp < until && (!input.permanent_only || e.severity === 'permanent'));",
          "const lines = wanted.slice(0, 20).map((e) => '• ' + e.recipient + ': ' + (e.reason ?? e.severity ?? 'failed'));",
          "if (wanted.length > 20) lines.push('…and ' + (wanted.length - 20) + ' more');",
          "return { text: wanted.length ? [wanted.length + ' failed deliveries in the last 24 hours:', ...lines].join('\\n') : 'No failed deliveries in the last 24 hours.' };",
        ].join("\n"),
      },
      tool("post", "slack_send_message", { channel: "{{channel}}", text: "{{steps.report.result.text}}" }),
    ],
  },
  {
    id: "stripe-payment-link-by-email",
    name: "Lead → Stripe Checkout link by Postmark email",
    description:
      'When your site or CRM posts {"email", "name"?} to the webhook, create a Stripe Checkout link for price_id (prefilled with the email) and email it to the lead through Postmark.',
    category: "e-commerce",
    difficulty: "beginner",
    required_connections: ["stripe", "postmark"],
    tags: ["stripe", "checkout", "payment link", "postmark", "webhook"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: {
      price_id: v(null, "The Stripe price (price_…) the link sells; required"),
      success_url: v("https://acme.com/thanks", "Where buyers land after paying"),
      sender: v("Acme <sales@acme.com>", "A Postmark sender signature"),
      subject: v("Your order link", "Subject of the email"),
    },
    steps: [
      tool(
        "checkout",
        "stripe_create_checkout_session",
        { mode: "payment", line_items: [{ price: "{{price_id}}", quantity: 1 }], success_url: "{{success_url}}", customer_email: "{{input.email}}" },
        retry,
      ),
      tool(
        "email",
        "postmark_send_email",
        {
          from: "{{sender}}",
          to: "{{input.email}}",
          subject: "{{subject}}",
          html: '<p>Hi {{input.name | default: "there"}},</p><p><a href="{{steps.checkout.result.url}}">Complete your order</a>.</p>',
          tag: "payment-link",
        },
        retry,
      ),
    ],
  },
  {
    id: "stripe-refund-with-email-and-slack",
    name: "Refund a Stripe payment, tell the customer and the team",
    description:
      'Run by hand with {"charge_id", "email"}: refund the whole charge in Stripe as requested by the customer, email the customer how much was refunded through Postmark, and log the refund in Slack.',
    category: "customer-success",
    difficulty: "beginner",
    required_connections: ["stripe", "postmark", "slack"],
    tags: ["stripe", "refund", "support", "postmark", "slack"],
    featured: false,
    trigger_type: "manual",
    trigger_config: {},
    variables: {
      sender: v("Acme Support <support@acme.com>", "A Postmark sender signature"),
      channel: v("#support", "Slack channel for refunds"),
    },
    steps: [
      tool("refund", "stripe_create_refund", { charge: "{{input.charge_id}}", reason: "requested_by_customer" }, retry),
      {
        id: "refunded",
        type: "code",
        input: { refund: "{{steps.refund.result}}" },
        code: `${MONEY_CODE}\nreturn money(input.refund.amount, input.refund.currency);`,
      },
      tool(
        "email",
        "postmark_send_email",
        {
          from: "{{sender}}",
          to: "{{input.email}}",
          subject: "Your refund is on its way",
          text: "We refunded {{steps.refunded.result.amount}} {{steps.refunded.result.currency}} to your card. It shows up within 5-10 business days.",
          tag: "refund",
        },
        retry,
      ),
      tool("log", "slack_send_message", {
        channel: "{{channel}}",
        text: "Refunded {{steps.refunded.result.amount}} {{steps.refunded.result.currency}} of {{input.charge_id}} to {{input.email}} ({{steps.refund.result.id}})",
      }),
    ],
  },
  {
    id: "signup-to-sendgrid-list-and-welcome",
    name: "Newsletter signup → SendGrid list + welcome email",
    description:
      'When a signup form posts {"email", "first_name"?} to the webhook, add (or update) the contact in the SendGrid list list_id and send a welcome email from the sender.',
    category: "email-marketing",
    difficulty: "beginner",
    required_connections: ["sendgrid"],
    tags: ["newsletter", "signup", "sendgrid", "email", "webhook"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: {
      list_id: v(null, "The SendGrid marketing list's id; required"),
      sender: v("news@acme.com", "A verified SendGrid sender address"),
      subject: v("Welcome to the newsletter", "Subject of the welcome email"),
    },
    steps: [
      tool(
        "contact",
        "sendgrid_add_contacts",
        { list_ids: ["{{list_id}}"], contacts: [{ email: "{{input.email}}", first_name: '{{input.first_name | default: ""}}' }] },
        retry,
      ),
      tool(
        "welcome",
        "sendgrid_send_email",
        {
          from: "{{sender}}",
          to: [{ email: "{{input.email}}" }],
          subject: "{{subject}}",
          html: '<p>Hi {{input.first_name | default: "there"}}, you are on the list. Expect our next issue soon.</p>',
          categories: ["newsletter-welcome"],
        },
        retry,
      ),
    ],
  },
  {
    id: "web-lead-to-hubspot-deal-and-email",
    name: "Demo request → HubSpot contact + deal → Postmark email",
    description:
      'When a demo-request form posts {"email", "first_name"?, "company"?, "budget"?} to the webhook, create (or update) the HubSpot contact, open a deal for it in the chosen pipeline and stage (named after the company, its amount the budget, 0 when not given), and email the lead a confirmation through Postmark.',
    category: "lead-management",
    difficulty: "intermediate",
    required_connections: ["hubspot", "postmark"],
    tags: ["lead", "crm", "deal", "hubspot", "postmark", "webhook", "sales"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: {},
    variables: {
      pipeline: v("default", "The HubSpot pipeline the deal opens in"),
      dealstage: v("appointmentscheduled", "The pipeline stage the deal opens in (its internal name)"),
      sender: v("Acme Sales <sales@acme.com>", "A Postmark sender signature"),
      calendar_url: v("https://acme.com/book-a-demo", "Where the lead books the demo"),
    },
    steps: [
      tool(
        "contact",
        "hubspot_create_contact",
        {
          email: "{{input.email}}",
          firstname: '{{input.first_name | default: ""}}',
          company: '{{input.company | default: ""}}',
          lifecyclestage: "salesqualifiedlead",
          if_exists: "update",
        },
        retry,
      ),
      // A form sends the budget as text ("$12,000"), or not at all: the deal's amount is a number, 0 when unknown.
      {
        id: "deal_fields",
        type: "code",
        input: { budget: '{{input.budget | default: ""}}', company: '{{input.company | default: ""}}', email: "{{input.email}}" },
        code: [
          "const n = Number(String(input.budget).replace(/[^0-9.]/g, ''));",
          "return { amount: Number.isFinite(n) ? n : 0, name: (input.company || input.email) + ' demo' };",
        ].join("\n"),
      },
      tool(
        "deal",
        "hubspot_create_deal",
        {
          dealname: "{{steps.deal_fields.result.name}}",
          amount: "{{steps.deal_fields.result.amount}}",
          pipeline: "{{pipeline}}",
          dealstage: "{{dealstage}}",
          contact_id: "{{steps.contact.result.id}}",
        },
        retry,
      ),
      tool(
        "confirm",
        "postmark_send_email",
        {
          from: "{{sender}}",
          to: "{{input.email}}",
          subject: "Your demo request",
          text: 'Hi {{input.first_name | default: "there"}}, thanks for asking for a demo. Pick a time that suits you: {{calendar_url}}',
          tag: "demo-request",
        },
        retry,
      ),
    ],
  },
  {
    id: "shopify-vip-customer-tag",
    name: "Big Shopify order → tag the customer VIP + Slack",
    description:
      "When Shopify sends orders/create with a total at or above the threshold, tag the order's customer with vip_tag in Shopify (for VIP segments and email flows; a guest checkout has no customer to tag) and tell the channel. Reads the order's name, total_price, currency, email and customer.admin_graphql_api_id.",
    category: "e-commerce",
    difficulty: "beginner",
    required_connections: ["shopify", "slack"],
    tags: ["shopify", "vip", "segmentation", "orders", "slack"],
    featured: false,
    // Shopify's orders/create webhook, verified Shopify's way: the order is `input.event`.
    trigger_type: "webhook",
    trigger_config: { verify: "shopify", event_types: ["orders/create"] },
    variables: {
      threshold: v(500, "Order total (in the shop's currency) that makes a customer VIP"),
      vip_tag: v("VIP", "The Shopify customer tag to add"),
      channel: v("#vip-customers", "Slack channel"),
    },
    steps: [
      when("big", { field: "input.event.total_price", operator: "greater_than_or_equal", value: "{{threshold}}" }, [
        when("has_customer", { field: "input.event.customer.admin_graphql_api_id", operator: "is_not_empty" }, [
          tool("tag", "shopify_add_tags", { id: "{{input.event.customer.admin_graphql_api_id}}", tags: ["{{vip_tag}}"] }, retry),
        ]),
        tool("alert", "slack_send_message", {
          channel: "{{channel}}",
          text: 'VIP order {{input.event.name}}: {{input.event.total_price}} {{input.event.currency}} from {{input.event.email | default: "a guest"}}',
        }),
      ]),
    ],
  },
  {
    id: "typeform-lead-to-pipedrive-deal",
    name: "Typeform lead → Pipedrive person + deal → Brevo email",
    description:
      'When Typeform sends a form response, read the answers whose field refs are email_ref, name_ref and company_ref, find the Pipedrive person with that email (or add one), open a deal for them in stage_id worth deal_value in currency (titled "<company> deal", else after the name), and email the lead a confirmation through Brevo from the sender. A response without an email answer fails the run before anything is sent.',
    category: "lead-management",
    difficulty: "intermediate",
    required_connections: ["pipedrive", "brevo"],
    tags: ["typeform", "lead", "crm", "deal", "pipedrive", "brevo", "email", "webhook", "sales"],
    featured: false,
    trigger_type: "webhook",
    trigger_config: { verify: "typeform", event_types: ["form_response"] },
    variables: {
      email_ref: v("email", "The ref of the form's email question"),
      name_ref: v("name", "The ref of the form's name question"),
      company_ref: v("company", "The ref of the form's company question"),
      stage_id: v(null, "The id of the Pipedrive stage new deals open in (in the stage's URL, or from GET /api/v2/stages); required"),
      deal_value: v(0, "What each new deal is worth, in currency"),
      currency: v("USD", "The deal value's 3-letter currency code"),
      sender_email: v("sales@acme.com", "A sender address verified in Brevo"),
      sender_name: v("Acme Sales", "The name the email comes from"),
      subject: v("Thanks for reaching out", "Subject of the confirmation email"),
    },
    steps: [
      {
        id: "lead",
        type: "code",
        input: {
          answers: "{{input.event.form_response.answers}}",
          refs: { email: "{{email_ref}}", name: "{{name_ref}}", company: "{{company_ref}}" },
        },
        code: [
          // Typeform keeps each answer's value under its type's name (email, text, phone_number, choice…).
          "const value = (ref) => { const a = (input.answers || []).find((x) => x.field && x.field.ref === ref); if (!a) return ''; const v = a[a.type]; return v && typeof v === 'object' ? (v.label ?? '') : String(v ?? ''); };",
          "const email = value(input.refs.email).trim();",
          "if (!email) throw new Error('The response has no answer to the question ' + input.refs.email);",
          "const name = value(input.refs.name).trim();",
          "const company = value(input.refs.company).trim();",
          // Pipedrive needs a name for a person, and titles deals "<organization or person> deal" itself.
          "return { email, name: name || email, first_name: name.split(/\\s+/)[0], title: (company || name || email) + ' deal' };",
        ].join("\n"),
      },
      // A lead who wrote before is already a person: the new deal goes on their record, not a duplicate's.
      tool("find", "pipedrive_find_persons", { term: "{{steps.lead.result.email}}", fields: "email", exact_match: true, limit: 1 }, retry),
      when(
        "known",
        { field: "steps.find.result.persons", operator: "is_not_empty" },
        [{ id: "existing", type: "set", values: { person_id: "{{steps.find.result.persons.0.id}}" } }],
        [
          tool("person", "pipedrive_create_person", { name: "{{steps.lead.result.name}}", emails: ["{{steps.lead.result.email}}"] }, retry),
          { id: "added", type: "set", values: { person_id: "{{steps.person.result.id}}" } },
        ],
      ),
      tool(
        "deal",
        "pipedrive_create_deal",
        { title: "{{steps.lead.result.title}}", value: "{{deal_value}}", currency: "{{currency}}", person_id: "{{person_id}}", stage_id: "{{stage_id}}" },
        retry,
      ),
      tool(
        "confirm",
        "brevo_send_transactional_email",
        {
          sender_email: "{{sender_email}}",
          sender_name: "{{sender_name}}",
          to: [{ email: "{{steps.lead.result.email}}" }],
          subject: "{{subject}}",
          text_content: 'Hi {{steps.lead.result.first_name | default: "there"}}, thanks for your message. We will get back to you within one business day.',
          tags: ["typeform-lead"],
        },
        retry,
      ),
    ],
  },
  {
    id: "shopify-order-to-klaviyo",
    name: "Shopify order → Klaviyo Placed Order event + profile",
    description:
      "When Shopify sends orders/create for an order with an email, update (or create) the buyer's Klaviyo profile with their first and last name (an order without both leaves the profile as it is) and record a metric_name event for them: the order's total as its value in the order's currency, dated when the order was placed, its id as the event's unique id (a redelivered order is recorded once), its name, items and discount codes as properties. A guest checkout without an email sends nothing.",
    category: "e-commerce",
    difficulty: "intermediate",
    required_connections: ["klaviyo"],
    tags: ["shopify", "klaviyo", "orders", "ecommerce", "segmentation", "webhook"],
    featured: false,
    // Shopify's orders/create webhook, verified Shopify's way: the order is `input.event`.
    trigger_type: "webhook",
    trigger_config: { verify: "shopify", event_types: ["orders/create"] },
    variables: {
      metric_name: v(
        "Placed Order",
        "The Klaviyo metric orders are recorded as; use another name if Klaviyo's own Shopify integration already records Placed Order",
      ),
    },
    steps: [
      when("has_email", { field: "input.event.email", operator: "is_not_empty" }, [
        {
          id: "order",
          type: "code",
          input: { order: "{{input.event}}" },
          code: [
            "const o = input.order;",
            "const buyer = o.customer || {};",
            "const address = o.billing_address || o.shipping_address || {};",
            "const first_name = buyer.first_name || address.first_name || '';",
            "const last_name = buyer.last_name || address.last_name || '';",
            // Klaviyo's Placed Order properties (OrderId, ItemNames, Items…), as its flows and catalog reports read them.
            "const items = (o.line_items || []).map((li) => ({ ProductID: li.product_id ?? null, SKU: li.sku || '', ProductName: li.title, Quantity: li.quantity, ItemPrice: Number(li.price) }));",
            "return {",
            "  first_name, last_name, named: Boolean(first_name && last_name),",
            // Shopify sends amounts as strings and ids as numbers; Klaviyo wants a number and a string.
            "  value: Number(o.total_price), unique_id: String(o.id),",
            "  properties: { OrderId: String(o.id), OrderName: o.name, ItemNames: items.map((i) => i.ProductName), Items: items, DiscountCodes: (o.discount_codes || []).map((d) => d.code) },",
            "};",
          ].join("\n"),
        },
        // Before the event, so flows it starts greet the buyer by name. An order without both names
        // leaves the profile's as they are (an empty one would clear them).
        when("named", { field: "steps.order.result.named", operator: "equals", value: true }, [
          tool(
            "profile",
            "klaviyo_create_or_update_profile",
            { email: "{{input.event.email}}", first_name: "{{steps.order.result.first_name}}", last_name: "{{steps.order.result.last_name}}" },
            retry,
          ),
        ]),
        tool(
          "event",
          "klaviyo_create_event",
          {
            metric_name: "{{metric_name}}",
            profile: { email: "{{input.event.email}}" },
            value: "{{steps.order.result.value}}",
            value_currency: "{{input.event.currency}}",
            // When the order was placed, not when the webhook arrived (Shopify redelivers a failed one hours later).
            time: "{{input.event.created_at}}",
            unique_id: "{{steps.order.result.unique_id}}",
            properties: "{{steps.order.result.properties}}",
          },
          retry,
        ),
      ]),
    ],
  },
];
