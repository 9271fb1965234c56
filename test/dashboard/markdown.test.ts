import { describe, expect, it } from "vitest";
import { MAX_MARKDOWN_CHARS, renderMarkdown } from "../../src/dashboard/chat/markdown";

describe("the chat's markdown", () => {
  it("renders emphasis, code, lists and links as HTML", () => {
    const html = renderMarkdown("Ran _math evaluate_ with `6 * 7`:\n\n- **42**\n- see [the docs](https://example.com/docs)\n\n```\nconst x = 1 < 2;\n```");
    expect(html).toContain("<em>math evaluate</em>");
    expect(html).toContain("<code>6 * 7</code>");
    expect(html).toContain("<li><strong>42</strong></li>");
    expect(html).toContain('<a href="https://example.com/docs" rel="noopener noreferrer nofollow" target="_blank">the docs</a>');
    expect(html).toContain("<pre><code>const x = 1 &lt; 2;\n</code></pre>");
  });

  it("leaves script tags, event handlers and raw HTML inert: escaped as text", () => {
    const html = renderMarkdown('Hi <script>alert(1)</script> <img src=x onerror="alert(2)"> <a href="javascript:alert(3)">x</a>');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/<a /i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
  });

  it("does not make links of javascript:, data: or vbscript: targets, however they are spelt", () => {
    for (const target of [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "javascript&#58;alert(1)",
      "&#106;avascript:alert(1)",
      "data:text/html;base64,PHNjcmlwdD4=",
      "vbscript:msgbox(1)",
      " javascript:alert(1)",
    ]) {
      const html = renderMarkdown(`[click](${target}) <${target}>`);
      expect(html, target).not.toContain("<a ");
    }
    // An autolinked web address still works, and a relative link stays on the site.
    expect(renderMarkdown("see https://example.com and [home](/app)")).toMatch(
      /<a href="https:\/\/example.com"[^>]*>https:\/\/example.com<\/a>.*<a href="\/app"/s,
    );
  });

  it("does not render images (the page would load them from anywhere)", () => {
    const html = renderMarkdown("![pixel](https://tracker.example/p.gif)");
    expect(html).not.toContain("<img");
  });

  it("shows a message past the size bound as escaped plain text", () => {
    const text = `${"*".repeat(MAX_MARKDOWN_CHARS)}<b>`;
    const html = renderMarkdown(text);
    expect(html.startsWith("<p>")).toBe(true);
    expect(html).toContain("&lt;b&gt;");
    expect(html).not.toContain("<b>");
  });
});
