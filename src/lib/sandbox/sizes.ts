import { utf8Length } from "../bytes";
import { CODE_LIMITS } from "./limits";

/** A size near a limit of 1 MiB, exactly enough to tell the two apart. */
const kib = (bytes: number) => `${Math.ceil(bytes / 1024).toLocaleString("en-US")} KiB`;

/** Why `code` is too long to be a code step's body, or null. */
export function codeSizeProblem(code: string): string | null {
  const bytes = utf8Length(code);
  return bytes > CODE_LIMITS.maxCodeBytes ? `The code is ${kib(bytes)}; a code step holds at most ${kib(CODE_LIMITS.maxCodeBytes)}.` : null;
}

/** Why the input (as JSON) is too large to hand to the code, or null. */
export function inputSizeProblem(inputJson: string): string | null {
  const bytes = utf8Length(inputJson);
  if (bytes <= CODE_LIMITS.maxInputBytes) return null;
  return `The input is ${kib(bytes)} of JSON; a code step takes at most ${kib(CODE_LIMITS.maxInputBytes)}. Pass only what the code needs with the step's \`input\`.`;
}

export const tooLarge = (size: number) =>
  `The result is ${kib(size)} of JSON; a code step returns at most ${kib(CODE_LIMITS.maxResultBytes)}. Return only what the next steps need.`;
