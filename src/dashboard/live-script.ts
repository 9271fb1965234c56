import type { Context } from "hono";
import type { AppEnv } from "../http/app-env";
import { CHAT_SCRIPT } from "./live-chat-script";

export const LIVE_SCRIPT_PATH = "/app/assets/live.js";

/**
 * The one script of the tools and chat pages, served from this origin (the pages' CSP allows no
 * other). It only enhances: a tool's Run form streams its events (start, progress, log, result or
 * error, end) into the page's live list, and the chat shows a turn as it happens (live-chat-script.ts).
 * Without it the forms post plainly.
 */
const SCRIPT = String.raw`"use strict";
(() => {
  const parse = (text) => { try { return JSON.parse(text); } catch { return text; } };

  // Splits a text/event-stream body into (event, data, id) as they arrive.
  async function readEvents(response, onEvent) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer = (buffer + decoder.decode(value, { stream: true })).replace(/\r\n?/g, "\n");
      let cut = buffer.indexOf("\n\n");
      while (cut >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let name = "message";
        let id;
        const data = [];
        for (const line of frame.split("\n")) {
          if (line.startsWith("event:")) name = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
          else if (line.startsWith("id:")) id = Number(line.slice(3).trim());
        }
        if (data.length) onEvent(name, parse(data.join("\n")), id);
        cut = buffer.indexOf("\n\n");
      }
    }
  }

  const region = document.getElementById("live-run");
  const list = document.getElementById("live-events");
  // Shown from the start, so screen readers know the live list before anything is added to it.
  if (region) region.hidden = false;
  const say = (text, isError) => {
    const item = document.createElement("li");
    item.textContent = text;
    if (isError) item.className = "field-error";
    list.append(item);
  };
  // Why a request was refused: the JSON problem's reasons, or the alert of the page answered.
  async function refusalText(response, type) {
    const fallback = "The request was refused (HTTP " + response.status + "). Reload the page and try again.";
    try {
      if (type.includes("json")) {
        const refusal = await response.json();
        const reasons = (refusal.errors || []).map((e) => (e.field ? e.field + ": " : "") + e.message);
        return [refusal.error || refusal.detail || fallback].concat(reasons).join(" ");
      }
      if (type.includes("html")) {
        const alert = new DOMParser().parseFromString(await response.text(), "text/html").querySelector("[role=alert]");
        if (alert && alert.textContent.trim()) return alert.textContent.trim();
      }
    } catch {}
    return fallback;
  }
  const progressText = (p) => "Progress " + p.progress + (p.total !== undefined ? " of " + p.total : "") + (p.message ? ": " + p.message : "");

  const TOOL_EVENTS = {
    start: (d) => "Started " + d.name + " (" + d.call_id + ").",
    progress: progressText,
    log: (d) => "Log (" + d.level + "): " + d.message,
    result: (d) => "Succeeded in " + d.duration_ms + " ms.",
    error: (d) => "Failed: " + d.error_message,
    end: () => "Finished.",
  };

  const runForm = document.querySelector("form[data-live-stream]");
  if (runForm && list) {
    runForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const button = runForm.querySelector("button[type=submit]");
      const output = document.getElementById("live-result");
      list.replaceChildren();
      output.replaceChildren();
      button.disabled = true;
      try {
        const response = await fetch(runForm.dataset.liveStream, { method: "POST", body: new URLSearchParams(new FormData(runForm)) });
        const type = response.headers.get("Content-Type") || "";
        if (!response.ok || !type.startsWith("text/event-stream")) {
          // Refused before running: the reason (and each field's) comes as JSON, or a page says it.
          say(await refusalText(response, type), true);
          return;
        }
        let ended = false;
        await readEvents(response, (name, data) => {
          if (name === "end") ended = true;
          const describe = TOOL_EVENTS[name];
          if (describe) say(describe(data), name === "error");
          if (name === "result") {
            const wrap = document.createElement("div");
            wrap.className = "scroll";
            const pre = document.createElement("pre");
            pre.tabIndex = 0;
            pre.textContent = JSON.stringify(data.result, null, 2);
            wrap.append(pre);
            output.append(wrap);
          }
        });
        if (!ended) say("The stream stopped before the run finished; the audit log shows how the call ended.", true);
      } catch {
        say("The connection to the hub was lost before the run finished.", true);
      } finally {
        button.disabled = false;
      }
    });
  }

${CHAT_SCRIPT}})();
`;

export function serveLiveScript(c: Context<AppEnv>) {
  return c.body(SCRIPT, 200, {
    "Content-Type": "text/javascript; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  });
}
