/**
 * The chat page's part of /app/assets/live.js (live-script.ts puts it inside its function, after
 * `parse`, `readEvents`, `refusalText` and `progressText`, which it uses).
 *
 * Sending posts the form to …/send and reads the answer, a stream of the turn's events, with
 * fetch (EventSource cannot post): the user's message joins the list, the assistant's text grows
 * with each `delta` (as text: model output is never parsed as HTML here), tool calls appear as
 * rows on `tool_started` and get their outcome on `tool_finished`, and Stop is enabled. Once the
 * turn has finished, the list is replaced by the server's rendering of the stored messages (the
 * answer's markdown made safe there), as a reload would show it.
 *
 * A turn running when the page loads is followed with EventSource from where the page says its
 * events start (`data-turn-after`), so its answer so far and its tool calls are shown too. The id
 * of the last event before a send of this tab is kept in sessionStorage per conversation until the
 * turn ends: a page read before that turn began (a reload at once) follows it from there.
 */
export const CHAT_SCRIPT = `
  const chatForm = document.querySelector("form[data-live-send]");
  if (chatForm) {
    const status = document.getElementById("chat-status");
    const textarea = document.getElementById("chat-message");
    const sendButton = document.getElementById("chat-send");
    const stopButton = document.getElementById("chat-stop");
    const stopForm = document.getElementById("chat-stop-form");
    const markKey = "hub-chat-turn-after:" + chatForm.dataset.conversation;
    let lastId = Number(chatForm.dataset.lastEventId || 0);
    let running = false;
    // Whether the last status said another turn is queued after this one.
    let moreTurns = false;
    let answer = null;
    let follower = null;

    const mark = {
      get: () => { try { const kept = sessionStorage.getItem(markKey); return kept === null ? null : Number(kept); } catch { return null; } },
      set: (id) => { try { sessionStorage.setItem(markKey, String(id)); } catch {} },
      clear: () => { try { sessionStorage.removeItem(markKey); } catch {} },
    };
    const tell = (text, isError) => {
      status.textContent = text;
      status.classList.toggle("field-error", Boolean(isError));
    };
    const seen = (id) => { if (id > lastId) lastId = id; };
    const element = (tag, className, text) => {
      const node = document.createElement(tag);
      if (className) node.className = className;
      if (text !== undefined) node.textContent = text;
      return node;
    };
    const heading = (who, note) => {
      const title = element("h3", "", who + " ");
      title.append(note);
      return title;
    };
    const chatLog = () => document.getElementById("chat-log");

    // Send is off and Stop on while a turn runs; focus on a button being turned off goes to the message box.
    const setRunning = (on) => {
      running = on;
      const focused = document.activeElement;
      sendButton.disabled = on;
      stopButton.disabled = !on;
      if ((on && focused === sendButton) || (!on && focused === stopButton)) textarea.focus();
    };

    // The answer being written: created empty, so screen readers know its live parts before text arrives.
    function liveAnswer() {
      if (answer) return answer;
      const item = element("li", "message assistant live");
      const note = element("span", "meta", "· writing…");
      const tools = element("ul", "tool-rows");
      tools.setAttribute("aria-label", "Tool calls");
      tools.setAttribute("aria-live", "polite");
      const text = element("p", "text");
      text.setAttribute("aria-live", "polite");
      item.append(heading("Assistant", note), tools, text);
      chatLog().append(item);
      answer = { item, note, tools, text, round: 0, rows: new Map() };
      return answer;
    }

    function showUserMessage(message) {
      const item = element("li", "message user");
      item.id = "message-" + message.id;
      item.append(heading("You", element("span", "meta", "· just now")), element("p", "text", message.content));
      chatLog().append(item);
    }

    function showArguments(row, args) {
      const details = element("details");
      const scroll = element("div", "scroll");
      const pre = element("pre", "", JSON.stringify(args, null, 2));
      pre.tabIndex = 0;
      scroll.append(pre);
      details.append(element("summary", "", "Arguments"), scroll);
      row.append(details);
    }

    const HANDLERS = {
      status: (d) => {
        moreTurns = d.status === "processing";
        if (moreTurns && !running) setRunning(true);
        if (moreTurns) tell("The assistant is answering…");
      },
      message: (d) => {
        const message = d.message;
        // Already on the page (rendered by the server, or shown from an earlier event).
        if (!message || document.getElementById("message-" + message.id)) return;
        if (message.role === "user") {
          showUserMessage(message);
          liveAnswer();
        } else if (message.role === "assistant") {
          const live = liveAnswer();
          live.item.id = "message-" + message.id;
          // The stored answer, whole (deltas missed on a reconnect are in it).
          if (live.text.textContent !== message.content) live.text.textContent = message.content;
          const failed = message.status === "error" || message.status === "budget_exceeded";
          live.note.textContent = message.status === "stopped" ? "· stopped" : failed ? "· failed" : "· done";
          if (failed) {
            live.item.classList.add("failed");
            live.item.append(element("p", "error", message.error_message || "The assistant failed."));
          }
        }
        // Tool results are shown by their rows; a summary of older messages shows after the turn.
      },
      delta: (d) => {
        const live = liveAnswer();
        // The stored answer is the last round's text: a new round starts the text again.
        if (d.round !== live.round) {
          live.round = d.round;
          live.text.textContent = "";
        }
        live.text.append(d.text);
      },
      tool_started: (d) => {
        const live = liveAnswer();
        const row = element("li");
        const state = element("span", "", "running…");
        row.append(element("strong", "", d.name), ": ", state);
        showArguments(row, d.arguments);
        live.tools.append(row);
        live.rows.set(d.tool_call_id, state);
      },
      tool_progress: (d) => {
        const state = answer && answer.rows.get(d.tool_call_id);
        if (state) state.textContent = "running… " + progressText(d.progress || {});
      },
      tool_finished: (d) => {
        const state = answer && answer.rows.get(d.tool_call_id);
        if (state) state.textContent = (d.success ? "succeeded" : "failed") + " in " + d.duration_ms + " ms";
      },
      approval_requested: (d) => {
        const state = answer && answer.rows.get(d.approval.tool_call_id);
        if (state) state.textContent = "waiting for approval (" + d.approval.id + ")";
      },
      turn_finished: (d) => {
        tell(
          d.status === "awaiting_approval" ? "Waiting for approval: decide it under Approvals, and the turn goes on by itself." :
          d.status === "stopped" ? "Stopped: the answer so far is kept." :
          d.status === "completed" ? "The answer is complete." : "The assistant could not answer; its message says why.",
          d.status !== "completed" && d.status !== "stopped" && d.status !== "awaiting_approval",
        );
        answer = null;
        mark.clear();
        if (!moreTurns) finish();
      },
      // A followed stream has caught up: with no turn running there is nothing left to follow.
      ready: (d) => {
        if (d.status !== "idle") return;
        mark.clear();
        if (running) finish();
      },
    };

    function handle(name, data, id) {
      seen(id);
      const handler = HANDLERS[name];
      if (handler) handler(data);
    }

    function finish() {
      setRunning(false);
      if (follower) follower.close();
      follower = null;
      refresh();
    }

    // The stored messages as the server renders them, in place of what was shown live.
    async function refresh() {
      try {
        const response = await fetch(location.pathname, { headers: { Accept: "text/html" } });
        if (!response.ok) return;
        const next = new DOMParser().parseFromString(await response.text(), "text/html");
        const history = next.getElementById("chat-history");
        const current = document.getElementById("chat-history");
        if (!history || !current) return;
        // The server's own page (every tag in a message escaped there): nothing in it runs.
        current.replaceWith(document.adoptNode(history));
        const title = next.getElementById("chat-title");
        const shownTitle = document.getElementById("chat-title");
        if (title && shownTitle) shownTitle.textContent = title.textContent;
        document.title = next.title;
        const form = next.querySelector("form[data-live-send]");
        if (form) seen(Number(form.dataset.lastEventId));
      } catch {}
    }

    // The conversation's events after "after", as they come (EventSource reconnects by itself, with Last-Event-ID).
    function follow(after) {
      if (follower) follower.close();
      setRunning(true);
      const source = new EventSource(chatForm.dataset.liveEvents + "?last_event_id=" + after);
      follower = source;
      for (const name of Object.keys(HANDLERS)) {
        source.addEventListener(name, (event) => {
          if (follower === source) handle(name, parse(event.data), Number(event.lastEventId) || 0);
        });
      }
      source.onerror = () => {
        // Refused (signed out, deleted, too many streams): EventSource gives up.
        if (source.readyState !== EventSource.CLOSED || follower !== source) return;
        follower = null;
        setRunning(false);
        tell("The live answer could not be followed: reload the page to see it.", true);
      };
    }

    chatForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (running) return;
      if (!textarea.value.trim()) {
        tell("Write a message first.", true);
        textarea.focus();
        return;
      }
      const body = new URLSearchParams(new FormData(chatForm));
      setRunning(true);
      tell("Sending…");
      mark.set(lastId);
      let finished = false;
      try {
        const response = await fetch(chatForm.dataset.liveSend, { method: "POST", body });
        const type = response.headers.get("Content-Type") || "";
        if (!response.ok || !type.startsWith("text/event-stream")) {
          // Refused before anything was stored: say why, and keep the message in its box.
          mark.clear();
          setRunning(false);
          tell(await refusalText(response, type), true);
          return;
        }
        await readEvents(response, (name, data, id) => {
          if (name === "message" && data.message && data.message.role === "user") textarea.value = "";
          if (name === "turn_finished") finished = true;
          handle(name, data, id);
        });
      } catch {}
      // The stream ended before its turn did (a lost connection, or its time was up), or another
      // turn is queued after it: go on from the last event seen.
      if (!finished || moreTurns) follow(lastId);
    });

    stopForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (document.activeElement === stopButton) textarea.focus();
      stopButton.disabled = true;
      tell("Stopping…");
      try {
        const response = await fetch(stopForm.action, { method: "POST", body: new URLSearchParams(new FormData(stopForm)), redirect: "manual" });
        // Accepted (a 303 back to the page): the turn's own events bring the stopped answer.
        if (response.type === "opaqueredirect" || response.ok) return;
        tell(await refusalText(response, response.headers.get("Content-Type") || ""), true);
      } catch {
        tell("The hub could not be reached to stop the answer.", true);
      }
      stopButton.disabled = !running;
    });

    // A turn running as the page was read is followed from its first event; failing that, one this
    // tab sent just before a reload, if the page was read before it began.
    const kept = mark.get();
    if (chatForm.dataset.turnAfter !== undefined) follow(Number(chatForm.dataset.turnAfter));
    else if (kept !== null && kept >= lastId) follow(kept);
    else {
      mark.clear();
      setRunning(false);
    }
  }
`;
