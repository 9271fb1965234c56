import type { Env } from "../env";
import { createSecretBox, type SecretBox } from "../core/secret-box";

const boxes = new WeakMap<Env, Promise<SecretBox>>();

/** The deployment's SecretBox, built once per isolate from ENCRYPTION_KEY(S). */
export function secretBoxFor(env: Env): Promise<SecretBox> {
  let box = boxes.get(env);
  if (!box) {
    box = createSecretBox(env.ENCRYPTION_KEY, env.ENCRYPTION_KEYS);
    // A misconfiguration must not be remembered forever: let the next request try again.
    box.catch(() => boxes.delete(env));
    boxes.set(env, box);
  }
  return box;
}
