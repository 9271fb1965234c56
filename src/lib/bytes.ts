const encoder = new TextEncoder();

/** The bytes `text` takes as UTF-8, as D1 stores it. */
export const utf8Length = (text: string) => encoder.encode(text).byteLength;

/** A size as people read it: 16 MiB, 64 KiB, 1.5 MiB, 900 bytes. */
export function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${round(bytes / (1024 * 1024))} MiB`;
  if (bytes >= 1024) return `${round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

const round = (value: number) => String(Math.round(value * 10) / 10);
