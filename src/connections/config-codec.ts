import type { Platform } from "./platforms/types";
import type { SecretBox } from "../core/secret-box";

/** How a sealed secret sits inside a stored config. */
type Sealed = { $sealed: string };
const isSealed = (value: unknown): value is Sealed => typeof value === "object" && value !== null && typeof (value as Sealed).$sealed === "string";

export const MASK = "••••";

/** Secrets are bound to the record and field they belong to. */
const contextFor = (uid: string, field: string) => `connection:${uid}:${field}`;

/** Replaces each secret field with its ciphertext; other fields are stored as given. */
export async function sealConfig(platform: Platform, config: Record<string, unknown>, uid: string, box: SecretBox): Promise<Record<string, unknown>> {
  const stored: Record<string, unknown> = { ...config };
  for (const field of platform.secretFields) {
    if (config[field] === undefined) continue;
    stored[field] = { $sealed: await box.seal(JSON.stringify(config[field]), contextFor(uid, field)) } satisfies Sealed;
  }
  return stored;
}

/** The usable config; throws SecretUnreadable if a ciphertext was tampered with. */
export async function openConfig(platform: Platform, stored: Record<string, unknown>, uid: string, box: SecretBox): Promise<Record<string, unknown>> {
  const config: Record<string, unknown> = { ...stored };
  for (const field of platform.secretFields) {
    const value = stored[field];
    if (isSealed(value)) config[field] = JSON.parse(await box.open(value.$sealed, contextFor(uid, field)));
  }
  return config;
}

/** What responses show: secrets as "••••" plus the last four characters (or only "••••" if short). */
export async function maskConfig(platform: Platform, stored: Record<string, unknown>, uid: string, box: SecretBox): Promise<Record<string, unknown>> {
  const masked: Record<string, unknown> = { ...stored };
  for (const field of platform.secretFields) {
    const value = stored[field];
    if (!isSealed(value)) continue;
    let plain: unknown;
    try {
      plain = JSON.parse(await box.open(value.$sealed, contextFor(uid, field)));
    } catch {
      masked[field] = MASK;
      continue;
    }
    masked[field] = maskValue(plain);
  }
  return masked;
}

function maskValue(value: unknown): unknown {
  if (typeof value === "string") return value.length >= 12 ? `${MASK}${value.slice(-4)}` : MASK;
  if (value && typeof value === "object") return Object.fromEntries(Object.keys(value).map((key) => [key, MASK]));
  return MASK;
}
