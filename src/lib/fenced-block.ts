/**
 * The inside of the first ``` fence of a model's answer (an optional `json` tag dropped), found
 * with indexOf: a regex over model output can backtrack for seconds on a long run of spaces.
 */
export function fencedBlock(text: string): string | undefined {
  const open = text.indexOf("```");
  if (open < 0) return undefined;
  const close = text.indexOf("```", open + 3);
  if (close < 0) return undefined;
  const inside = text.slice(open + 3, close);
  return /^json/i.test(inside) ? inside.slice(4) : inside;
}
