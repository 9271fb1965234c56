import { HtmlDocument } from "../http/html-document";
import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";

/** GET /: what this service is and where to go next. */
export const homePage = new Hono<AppEnv>().get("/", (c) =>
  c.html(
    <HtmlDocument>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>Agent Automation Hub</title>
          <style>{"body{font-family:system-ui,sans-serif;max-width:720px;margin:48px auto;padding:0 20px;line-height:1.5}"}</style>
        </head>
        <body>
          <h1>Agent Automation Hub</h1>
          <p>
            Build autonomous AI agents and marketing automations: connect platforms, talk to an agent that calls tools, turn what worked into a workflow, and
            deploy it on a schedule or on events.
          </p>
          <ul>
            <li>
              <a href="/docs">API reference</a>
            </li>
            <li>
              <a href="/v1/openapi.json">OpenAPI 3.1 document</a>
            </li>
          </ul>
        </body>
      </html>
    </HtmlDocument>,
  ),
);
