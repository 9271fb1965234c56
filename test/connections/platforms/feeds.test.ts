// RSS and Atom feeds read through feeds_list_items against feeds the fake serves: items newest
// first with stable ids, entities and CDATA read, Atom's alternate link; a page that is not a
// feed fails without retrying.
import { describe, expect, it } from "vitest";
import { scenarioUrl } from "../../tools/platform-helpers";
import { Hub, expectCall, failed, ok, onlyRequestOf } from "./platform-test-kit";

async function setup() {
  const hub = await Hub.create();
  await hub.connect("feeds", {});
  const scenario = crypto.randomUUID().replaceAll("-", "");
  return { hub, scenario, url: (path: string) => `${scenarioUrl(scenario)}${path}` };
}

describe("RSS and Atom feeds", () => {
  it("reads an RSS feed newest first, asking for XML", async () => {
    const { hub, scenario, url } = await setup();
    const out = await ok(hub, "feeds_list_items", { url: url("/feeds/blog.rss") });
    expect(out).toEqual({
      title: "Acme Blog",
      format: "rss",
      items: [
        {
          id: "post-2",
          title: "Launch — today",
          link: "https://acme.example/blog/launch",
          published_at: "2026-11-22T09:00:00.000Z",
          summary: "We launched & it went well.",
          author: "Ada",
        },
        {
          id: "post-1",
          title: "Older post",
          link: "https://acme.example/blog/older",
          published_at: "2026-11-20T09:00:00.000Z",
          summary: "First & foremost",
          author: "Grace",
        },
      ],
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "GET", "/feeds/blog.rss");
    expect(request.headers.accept).toContain("application/rss+xml");
  });

  it("reads an Atom feed (id, alternate link, author name) and honours limit", async () => {
    const { hub, url } = await setup();
    expect(await ok(hub, "feeds_list_items", { url: url("/feeds/changelog.atom"), limit: 1 })).toEqual({
      title: "Acme Changelog",
      format: "atom",
      items: [
        {
          id: "tag:acme.example,2026:2.1",
          title: "v2.1",
          link: "https://acme.example/changelog/2.1",
          published_at: "2026-11-22T10:00:00.000Z",
          summary: "Faster exports",
          author: "Linus",
        },
      ],
    });
  });

  it("a page that is not a feed fails with 422, not retried; a missing one is the server's 404", async () => {
    const { hub, url } = await setup();
    const out = await failed(hub, "feeds_list_items", { url: url("/feeds/page.html") });
    expect(out).toMatchObject({ retryable: false, error_message: expect.stringContaining("is not an RSS or Atom feed") });
    expect(await failed(hub, "feeds_list_items", { url: url("/feeds/gone.rss") })).toMatchObject({ error_status: 404, retryable: false });
  });
});
