// Questions for `hub login` when its options are left out. A secret is read without echo.
import { createInterface } from "node:readline/promises";
import { CliError } from "./output.ts";

export async function ask(question: string, fallback?: string): Promise<string> {
  if (!process.stdin.isTTY) {
    if (fallback !== undefined) return fallback;
    throw new CliError(`${question}: not given, and there is no terminal to ask on.`);
  }
  const lines = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await lines.question(`${question}${fallback ? ` [${fallback}]` : ""}: `)).trim();
    return answer || fallback || "";
  } finally {
    lines.close();
  }
}

export async function askSecret(question: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) throw new CliError(`${question}: not given, and there is no terminal to ask on.`);
  process.stderr.write(`${question}: `);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding("utf8");
  try {
    return await new Promise<string>((resolve, reject) => {
      let secret = "";
      const onData = (chunk: string) => {
        for (const char of chunk) {
          if (char === "\r" || char === "\n") {
            stdin.off("data", onData);
            return resolve(secret);
          }
          if (char === "\u0003") {
            stdin.off("data", onData);
            return reject(new CliError("cancelled"));
          }
          secret = char === "\u007f" ? secret.slice(0, -1) : secret + char;
        }
      };
      stdin.on("data", onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write("\n");
  }
}
