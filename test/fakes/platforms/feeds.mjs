// Feeds as publishers serve them: RSS 2.0 (guid, pubDate, CDATA descriptions, entities) and
// Atom 1.0 (id, link rel="alternate" href, published/updated), with their XML content types; a
// page that is not a feed is HTML.
import { Answer } from "../fake-kit.mjs";

const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel>
    <title>Acme Blog</title>
    <link>https://acme.example/blog</link>
    <item>
      <title>Older post</title>
      <link>https://acme.example/blog/older</link>
      <guid isPermaLink="false">post-1</guid>
      <pubDate>Fri, 20 Nov 2026 09:00:00 GMT</pubDate>
      <description>First &amp; foremost</description>
      <dc:creator>Grace</dc:creator>
    </item>
    <item>
      <title>Launch &#8212; today</title>
      <link>https://acme.example/blog/launch</link>
      <guid isPermaLink="false">post-2</guid>
      <pubDate>Sun, 22 Nov 2026 09:00:00 GMT</pubDate>
      <description><![CDATA[<p>We <b>launched</b> & it went well.</p>]]></description>
      <dc:creator>Ada</dc:creator>
    </item>
  </channel>
</rss>`;

const ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Acme Changelog</title>
  <link href="https://acme.example/changelog"/>
  <updated>2026-11-22T10:00:00Z</updated>
  <entry>
    <title>v2.1</title>
    <link rel="alternate" href="https://acme.example/changelog/2.1"/>
    <id>tag:acme.example,2026:2.1</id>
    <updated>2026-11-22T10:00:00Z</updated>
    <summary>Faster exports</summary>
    <author><name>Linus</name></author>
  </entry>
</feed>`;

const xml = (text, type) => new Answer(200, text, { "Content-Type": type });

export const feedsRoutes = [
  ["GET", /^\/feeds\/blog\.rss$/, () => xml(RSS, "application/rss+xml; charset=utf-8")],
  ["GET", /^\/feeds\/changelog\.atom$/, () => xml(ATOM, "application/atom+xml")],
  ["GET", /^\/feeds\/page\.html$/, () => xml("<!doctype html><html><head><title>Not a feed</title></head></html>", "text/html")],
];
