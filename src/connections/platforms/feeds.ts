import { z } from "@hono/zod-openapi";
import { parseFeed } from "./feed-parse";
import { PlatformError, definePlatform, platformTool } from "./types";

type FeedsConfig = { base_url?: string };

/**
 * RSS and Atom feeds: public URLs, no credentials. Each call names its feed's URL (checked by the
 * outbound guard like every platform call), so one connection reads any number of feeds.
 */
export const feeds = definePlatform<FeedsConfig>({
  id: "feeds",
  name: "RSS and Atom feeds",
  description: "Read the items of any RSS 2.0 or Atom feed, newest first: a blog, a changelog, a podcast, a news site.",
  category: "productivity",
  authKind: "none",
  config: z.object({}),
  secretFields: [],
  // Calls carry the whole feed URL as their path.
  baseUrl: () => "",
  polls: [{ title: "New feed item", action: "list_items", arguments: { url: "https://example.com/feed.xml" }, items_path: "items", id_path: "id" }],
  tools: [
    platformTool({
      action: "list_items",
      effect: "read",
      title: "Read a feed's items",
      description:
        "Reads an RSS or Atom feed and returns its items newest first (id: the guid or Atom id, title, link, published_at, summary, author); the ids are stable, so it drives a 'new feed item' poll trigger (items_path: items, id_path: id).",
      input: z.object({
        url: z
          .string()
          .url()
          .max(2000)
          .regex(/^https?:\/\//, "An http(s) URL."),
        limit: z.number().int().min(1).max(500).default(50),
      }),
      async run(client, args) {
        const body = await client.request<unknown>({
          method: "GET",
          path: args.url,
          headers: { Accept: "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5" },
        });
        const feed = typeof body === "string" ? parseFeed(body) : undefined;
        if (!feed) throw new PlatformError(`${args.url} is not an RSS or Atom feed.`, 422, undefined, { retryable: false });
        return { title: feed.title, format: feed.format, items: feed.items.slice(0, args.limit) };
      },
    }),
  ],
});
