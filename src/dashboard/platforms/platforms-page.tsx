import { PostButton, formatTime } from "../common";
import { ErrorNote, Page } from "../layout";

export interface CustomPlatformRow {
  platform_id: string;
  name: string;
  server_url: string;
  auth_kind: string;
  tool_count: number;
  created_at: string;
}

/**
 * `/app/platforms`: the person's custom platforms (DESIGN §5). Uploading an OpenAPI document (a
 * file, or pasted JSON) makes one; each can be deleted once it has no connections.
 */
export function PlatformsPage(props: { email: string; csrf: string; platforms: CustomPlatformRow[]; added?: CustomPlatformRow; error?: string }) {
  return (
    <Page title="Custom platforms" email={props.email} csrf={props.csrf}>
      <h1>Custom platforms</h1>
      {props.added ? (
        <div class="notice" role="status">
          <p>
            <strong>{props.added.name}</strong> was added as <code id="new-platform-id">{props.added.platform_id}</code> with {props.added.tool_count} tools.
            Connect to it on <a href="/app/connections">Connections</a> or with <code>POST /v1/connections</code> and{" "}
            <code>platform: "{props.added.platform_id}"</code>.
          </p>
        </div>
      ) : null}
      <ErrorNote message={props.error} />
      <section class="card" aria-labelledby="add-platform">
        <h2 id="add-platform">Add a platform from an OpenAPI document</h2>
        <p class="hint">
          An OpenAPI 3.0 or 3.1 document as JSON, at most 2 MiB and 500 operations. Each operation becomes a tool; the document's security scheme says what a
          connection needs (API key, bearer token, basic or OAuth 2.0).
        </p>
        <form method="post" action="/app/platforms" enctype="multipart/form-data">
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <label for="platform-file">Document file</label>
          <input id="platform-file" type="file" name="document_file" accept=".json,application/json" />
          <label for="platform-text">Or paste the document</label>
          <textarea id="platform-text" name="document" rows={8} />
          <label for="platform-name">
            Name <span class="required">(optional: default, the document's title)</span>
          </label>
          <input id="platform-name" type="text" name="name" maxlength={100} />
          <button type="submit" name="step" value="create">
            Add platform
          </button>
        </form>
      </section>
      <section class="card" aria-labelledby="your-platforms">
        <h2 id="your-platforms">Your custom platforms</h2>
        {props.platforms.length === 0 ? (
          <p>No custom platform yet.</p>
        ) : (
          <ul>
            {props.platforms.map((platform) => (
              <li>
                <strong>{platform.name}</strong> <code>{platform.platform_id}</code>: {platform.tool_count} tools, {platform.auth_kind}, calls{" "}
                <code>{platform.server_url}</code>; added {formatTime(platform.created_at)}{" "}
                <PostButton
                  action="/app/platforms"
                  csrf={props.csrf}
                  hidden={{ platform_id: platform.platform_id }}
                  className="danger"
                  step="delete"
                  label="Delete"
                  ariaLabel={`Delete ${platform.name}`}
                />
              </li>
            ))}
          </ul>
        )}
      </section>
    </Page>
  );
}
