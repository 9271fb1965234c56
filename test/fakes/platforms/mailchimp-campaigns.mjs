// Mailchimp campaigns (mailchimp.com/developer/marketing/api/campaigns/): created as drafts
// ("save"), content set with PUT, sent with 204; a campaign not ready to send is Mailchimp's 400
// problem "Bad Request" with the reason; lists page by count and offset with total_items.
import { Answer, Store, pageOf } from "../fake-kit.mjs";

const campaigns = new Store();
let serial = 0;

const problem = (status, title, detail) =>
  new Answer(status, {
    type: "https://mailchimp.com/developer/marketing/docs/errors/",
    title,
    status,
    detail,
    instance: "5f3b1c2a-0000-4000-8000-000000000001",
  });

function create(req) {
  const body = req.body ?? {};
  if (body.type !== "regular") return problem(400, "Invalid Resource", "The resource submitted could not be validated.");
  serial += 1;
  return campaigns.add(req.scenario, {
    id: `c${String(serial).padStart(9, "0")}`,
    type: "regular",
    status: "save",
    emails_sent: 0,
    send_time: "",
    create_time: `2026-11-22T09:00:0${serial % 10}+00:00`,
    recipients: { list_id: body.recipients?.list_id },
    settings: body.settings ?? {},
    content_set: false,
  });
}

function find(req, id) {
  return campaigns.find(req.scenario, (c) => c.id === id);
}

export const mailchimpCampaignRoutes = [
  ["POST", /^\/campaigns$/, create],
  [
    "PUT",
    /^\/campaigns\/(\w+)\/content$/,
    (req, m) => {
      const found = find(req, m[1]);
      if (!found) return problem(404, "Resource Not Found", "The requested resource could not be found.");
      found.content_set = true;
      return { html: req.body?.html ?? "", plain_text: req.body?.plain_text ?? "" };
    },
  ],
  [
    "POST",
    /^\/campaigns\/(\w+)\/actions\/send$/,
    (req, m) => {
      const found = find(req, m[1]);
      if (!found) return problem(404, "Resource Not Found", "The requested resource could not be found.");
      if (!found.content_set) return problem(400, "Bad Request", "Your Campaign is not ready to send. The campaign has no content.");
      found.status = "sent";
      return new Answer(204, "");
    },
  ],
  [
    "GET",
    /^\/campaigns$/,
    (req) => {
      const all = campaigns.list(req.scenario).filter((c) => !req.query.status || c.status === req.query.status);
      return { campaigns: pageOf(all, req.query.offset, req.query.count ?? 10).page, total_items: all.length };
    },
  ],
];
