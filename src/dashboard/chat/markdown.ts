import MarkdownIt from "markdown-it";

/** Link targets a message may point at; anything else (javascript:, data:, vbscript:, file:) stays text. */
const SAFE_SCHEMES = new Set(["http:", "https:", "mailto:"]);
/** Markdown longer than this is shown as plain text: rendering stays cheap whatever a model wrote. */
export const MAX_MARKDOWN_CHARS = 100_000;

/**
 * The assistant's answers are markdown (SPEC: content is markdown). markdown-it with `html: false`
 * escapes every tag the text holds, so a `<script>` or an `onerror=` attribute arrives as text;
 * links pass its own validation (which already refuses javascript:, vbscript:, file: and most
 * data:) and then ours, which keeps only web and mail links. Images are not rendered: the pages'
 * CSP would block them anyway, and a model-written image is a tracking pixel in waiting.
 */
const renderer = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });
renderer.disable(["image"]);

const validateLink = renderer.validateLink.bind(renderer);
renderer.validateLink = (url: string) => {
  if (!validateLink(url)) return false;
  const scheme = /^\s*([a-z][a-z0-9+.-]*:)/i.exec(url)?.[1]?.toLowerCase();
  // A relative link or a fragment has no scheme: it stays on this site.
  return scheme === undefined || SAFE_SCHEMES.has(scheme);
};

// Links open in a new tab that learns nothing of the page and passes no ranking on.
const renderToken = renderer.renderer.renderToken.bind(renderer.renderer);
renderer.renderer.rules.link_open = (tokens, index, options) => {
  const token = tokens[index]!;
  token.attrSet("rel", "noopener noreferrer nofollow");
  token.attrSet("target", "_blank");
  return renderToken(tokens, index, options);
};

/** The message as safe HTML: every tag escaped, only web and mail links live. */
export function renderMarkdown(text: string): string {
  if (text.length > MAX_MARKDOWN_CHARS) return `<p>${renderer.utils.escapeHtml(text)}</p>`;
  return renderer.render(text);
}
