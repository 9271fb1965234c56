import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";
import { DocsPage } from "./page";

/** GET /docs: a readable reference rendered from the live OpenAPI document; no external assets. */
export function createDocsPage(openApiDocument: (origin: string) => Record<string, any>) {
  return new Hono<AppEnv>().get("/docs", (c) => {
    c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
    return c.html(<DocsPage doc={openApiDocument(new URL(c.req.url).origin)} />);
  });
}
