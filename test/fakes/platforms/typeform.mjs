// Typeform's Create and Responses APIs (developer.typeform.com): responses newest first paged
// with `before=<token>`, answers typed by field, errors as {code, description}.
import { Answer } from "../fake-kit.mjs";

const FORM = "lT4Z3j";
const RESPONSES = [3, 2, 1].map((n) => ({
  landing_id: `tok${n}`,
  token: `tok${n}`,
  response_id: `tok${n}`,
  landed_at: `2026-11-2${n}T08:59:00Z`,
  submitted_at: `2026-11-2${n}T09:00:00Z`,
  hidden: { utm_source: "newsletter" },
  answers: [
    { field: { id: "f1", type: "email", ref: "email" }, type: "email", email: `lead${n}@example.com` },
    { field: { id: "f2", type: "multiple_choice", ref: "plan" }, type: "choice", choice: { label: n === 3 ? "Pro" : "Free" } },
    { field: { id: "f3", type: "opinion_scale" }, type: "number", number: n + 6 },
  ],
}));

const notFound = () => new Answer(404, { code: "FORM_NOT_FOUND", description: "Non existing form with uid lTnope" });

function responses(req, m) {
  if (m[1] !== FORM) return notFound();
  const start = req.query.before ? RESPONSES.findIndex((r) => r.token === req.query.before) + 1 : 0;
  const size = Number(req.query.page_size ?? 25);
  return { total_items: RESPONSES.length, page_count: Math.ceil(RESPONSES.length / size), items: RESPONSES.slice(start, start + size) };
}

const FORMS = [
  { id: FORM, title: "Demo request", last_updated_at: "2026-11-01T09:00:00Z", _links: { display: `https://acme.typeform.com/to/${FORM}` } },
  { id: "nPs0Q1", title: "NPS survey", last_updated_at: "2026-10-12T08:00:00Z", _links: { display: "https://acme.typeform.com/to/nPs0Q1" } },
];

export const typeformRoutes = [
  ["GET", /^\/me$/, () => ({ alias: "acme", email: "forms@acme.example", language: "en" })],
  ["GET", /^\/forms\/(\w+)\/responses$/, responses],
  [
    "GET",
    /^\/forms$/,
    // Pages by number, as Typeform does: page and page_size in, page_count out.
    (req) => {
      const size = Number(req.query.page_size ?? 10);
      const page = Number(req.query.page ?? 1);
      const search = String(req.query.search ?? "").toLowerCase();
      const found = FORMS.filter((form) => form.title.toLowerCase().includes(search));
      return { total_items: found.length, page_count: Math.max(1, Math.ceil(found.length / size)), items: found.slice((page - 1) * size, page * size) };
    },
  ],
  [
    "GET",
    /^\/forms\/(\w+)$/,
    (_req, m) =>
      m[1] === FORM
        ? {
            id: FORM,
            title: "Demo request",
            fields: [
              { id: "f1", ref: "email", type: "email", title: "Your work email?" },
              { id: "f2", ref: "plan", type: "multiple_choice", title: "Which plan?" },
            ],
          }
        : notFound(),
  ],
];
