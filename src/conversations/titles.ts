const MAX_TITLE = 60;

/** A title from the first message: its first line, cut at a word near 60 characters. */
export function titleFrom(content: string): string {
  const line =
    content
      .replace(/[#*_`>]/g, "")
      .split("\n")
      .map((l) => l.trim())
      .find(Boolean) ?? "New conversation";
  if (line.length <= MAX_TITLE) return line;
  const cut = line.slice(0, MAX_TITLE);
  const space = cut.lastIndexOf(" ");
  return `${(space > 30 ? cut.slice(0, space) : cut).trim()}…`;
}
