import type { ToolInfo } from "../../tools/types";
import { Page } from "../layout";

/** The tools pages' own CSS (controls, hints, events and scrolling JSON are the layout's). */
export const TOOLS_STYLE = `
textarea{font-family:ui-monospace,Menlo,Consolas,monospace}
.tool-list{list-style:none;padding:0}.tool-list li{border-bottom:1px solid #e5e7eb;padding:8px 0;overflow-wrap:anywhere}
.tool-list p{margin:4px 0 0}
`;

/** Long MCP descriptions are cut in the list; the tool's page shows them whole. */
const DESCRIPTION_SHOWN = 300;

export const toolHref = (name: string) => `/app/tools/${encodeURIComponent(name)}`;

/** `/app/tools`: the tools the person can run now, searched by name and description. */
export function ToolsListPage(props: { email: string; csrf: string; tools: ToolInfo[]; query: string; total: number }) {
  return (
    <Page title="Tools" email={props.email} csrf={props.csrf} style={TOOLS_STYLE}>
      <h1>Tools</h1>
      <p>Built-in tools, the tools of your connections and of your MCP servers. Open one to run it with arguments you enter.</p>
      <form method="get" action="/app/tools">
        <label for="tool-search">Search tools</label>
        <input id="tool-search" type="search" name="q" value={props.query} maxlength={100} />
        <button type="submit">Search</button>
      </form>
      <section class="card" aria-labelledby="tool-results">
        <h2 id="tool-results">{props.query ? `Tools matching “${props.query}”` : "All tools"}</h2>
        <p role="status">
          {props.tools.length} of {props.total} tools{props.query ? " match" : ""}.{props.query ? " " : ""}
          {props.query ? <a href="/app/tools">Show all tools</a> : null}
        </p>
        {props.tools.length === 0 ? null : (
          <ul class="tool-list">
            {props.tools.map((tool) => (
              <li>
                <strong>{tool.title}</strong> ({sourceOf(tool)}) ·{" "}
                <a href={toolHref(tool.name)}>
                  Open <code>{tool.name}</code>
                </a>
                {tool.description ? <p>{cut(tool.description)}</p> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </Page>
  );
}

export function sourceOf(tool: ToolInfo): string {
  if (tool.source === "builtin") return "built-in";
  if (tool.source === "mcp") return `MCP connection ${tool.connection_id}`;
  return `${tool.platform} connection ${tool.connection_id}`;
}

const cut = (text: string) => (text.length > DESCRIPTION_SHOWN ? `${text.slice(0, DESCRIPTION_SHOWN)}…` : text);

/** Tools whose name, title or description contains every word of the query (any case). */
export function searchTools(tools: ToolInfo[], query: string): ToolInfo[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return tools;
  return tools.filter((tool) => {
    const text = `${tool.name} ${tool.title} ${tool.description}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}
