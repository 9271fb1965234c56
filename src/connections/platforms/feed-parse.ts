// Reads RSS 2.0 and Atom 1.0 documents into items, without an XML library: the few elements a
// feed's items carry, found by linear scans (indexOf, no backtracking patterns) over a body the
// client already capped at 2 MB.

export interface FeedItem {
  id: string;
  title: string | null;
  link: string | null;
  published_at: string | null;
  summary: string | null;
  author: string | null;
}

const MAX_ITEMS = 500;
const MAX_TEXT = 2000;

/** The blocks between <tag …> and </tag> (not nested), in order. */
function blocks(xml: string, tag: string, max: number): string[] {
  const found: string[] = [];
  let at = 0;
  while (found.length < max) {
    const open = findOpen(xml, tag, at);
    if (open < 0) break;
    const start = xml.indexOf(">", open);
    if (start < 0) break;
    const end = xml.indexOf(`</${tag}>`, start);
    if (end < 0) break;
    found.push(xml.slice(start + 1, end));
    at = end + tag.length + 3;
  }
  return found;
}

/** Where `<tag` begins as a whole element name (so <item> is not found in <itemCount>). */
function findOpen(xml: string, tag: string, from: number): number {
  let at = from;
  for (;;) {
    const open = xml.indexOf(`<${tag}`, at);
    if (open < 0) return -1;
    const next = xml[open + tag.length + 1];
    if (next === ">" || next === " " || next === "/" || next === "\n" || next === "\t" || next === "\r") return open;
    at = open + 1;
  }
}

function element(xml: string, tag: string): string | null {
  const open = findOpen(xml, tag, 0);
  if (open < 0) return null;
  const start = xml.indexOf(">", open);
  if (start < 0 || xml[start - 1] === "/") return null;
  const end = xml.indexOf(`</${tag}>`, start);
  return end < 0 ? null : textOf(xml.slice(start + 1, end));
}

/** An attribute of the first <tag …> whose attributes include `where` (Atom's <link rel="alternate" href>). */
function attribute(xml: string, tag: string, name: string, where?: (attrs: string) => boolean): string | null {
  let at = 0;
  for (;;) {
    const open = findOpen(xml, tag, at);
    if (open < 0) return null;
    const close = xml.indexOf(">", open);
    if (close < 0) return null;
    const attrs = xml.slice(open + tag.length + 1, close);
    if (!where || where(attrs)) {
      for (const quote of ['"', "'"]) {
        const key = attrs.indexOf(`${name}=${quote}`);
        if (key >= 0) {
          const from = key + name.length + 2;
          const to = attrs.indexOf(quote, from);
          if (to > from) return decode(attrs.slice(from, to));
        }
      }
    }
    at = close;
  }
}

/** CDATA kept as is, entities decoded, tags dropped, whitespace folded, bounded. */
function textOf(raw: string): string {
  let text = raw.trim();
  if (text.startsWith("<![CDATA[")) text = text.slice(9, text.lastIndexOf("]]>") >= 0 ? text.lastIndexOf("]]>") : undefined);
  else text = decode(text);
  let plain = "";
  let inTag = false;
  for (const ch of text) {
    if (ch === "<") inTag = true;
    else if (ch === ">" && inTag) inTag = false;
    else if (!inTag) plain += ch;
    if (plain.length > MAX_TEXT * 2) break;
  }
  return plain.replace(/\s+/g, " ").trim().slice(0, MAX_TEXT);
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|[a-z]{2,4});/g, (whole, name: string) => {
    if (name.startsWith("#x")) return safeChar(Number.parseInt(name.slice(2), 16)) ?? whole;
    if (name.startsWith("#")) return safeChar(Number(name.slice(1))) ?? whole;
    return ENTITIES[name] ?? whole;
  });
}

const safeChar = (code: number) => (code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined);

function isoDate(value: string | null): string | null {
  if (!value) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

/** The feed's title and its items, newest first where they are dated (else in the feed's order). */
export function parseFeed(xml: string): { title: string | null; format: "rss" | "atom"; items: FeedItem[] } | undefined {
  const atom = findOpen(xml, "feed", 0) >= 0 && findOpen(xml, "rss", 0) < 0;
  if (!atom && findOpen(xml, "rss", 0) < 0 && findOpen(xml, "rdf:RDF", 0) < 0) return undefined;
  const entries = blocks(xml, atom ? "entry" : "item", MAX_ITEMS);
  const head = xml.slice(0, Math.max(0, findOpen(xml, atom ? "entry" : "item", 0))) || xml;
  const items = entries.map((entry) => {
    const link = atom ? attribute(entry, "link", "href", (attrs) => !attrs.includes("rel=") || attrs.includes('rel="alternate"')) : element(entry, "link");
    const title = element(entry, "title");
    const id = (atom ? element(entry, "id") : element(entry, "guid")) ?? link ?? title ?? "";
    return {
      id: id.slice(0, 500),
      title,
      link,
      published_at: isoDate(atom ? (element(entry, "published") ?? element(entry, "updated")) : (element(entry, "pubDate") ?? element(entry, "dc:date"))),
      summary: atom ? (element(entry, "summary") ?? element(entry, "content")) : element(entry, "description"),
      author: atom ? element(entry, "name") : (element(entry, "author") ?? element(entry, "dc:creator")),
    };
  });
  const dated = items.every((item) => item.published_at);
  if (dated) items.sort((a, b) => (b.published_at ?? "").localeCompare(a.published_at ?? ""));
  return { title: element(head, "title"), format: atom ? "atom" : "rss", items: items.filter((item) => item.id) };
}
