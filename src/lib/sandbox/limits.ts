/** What a code step may use (DESIGN.md §5, "Data between steps"), apart from the engine so that step schemas can name them. */
export const CODE_LIMITS = {
  /** The code itself: the body of an async function. */
  maxCodeBytes: 64 * 1024,
  defaultCpuMs: 200,
  maxCpuMs: 2000,
  wallMs: 5000,
  memoryBytes: 64 * 1024 * 1024,
  /** The input and the result, each as JSON. */
  maxInputBytes: 1024 * 1024,
  maxResultBytes: 1024 * 1024,
  maxLogLines: 100,
  maxLogLineChars: 1000,
  /** All lines of a run together; the lines past it are counted as not kept. */
  maxLogChars: 64 * 1024,
  /** The error a failed run reports (name, message and line), as the host reads it from the sandbox. */
  maxErrorChars: 2000,
} as const;
