import type { Config } from "./config";
import { createSecretBox, type SecretBox } from "./secret-box";

const boxes = new WeakMap<Config["encryption"], Promise<SecretBox>>();

/** The deployment's SecretBox, built once per isolate from ENCRYPTION_KEY(S). */
export function secretBoxFor(config: Pick<Config, "encryption">): Promise<SecretBox> {
  let box = boxes.get(config.encryption);
  if (!box) {
    box = createSecretBox(config.encryption.key, config.encryption.keys);
    // A misconfiguration must not be remembered forever: let the next request try again.
    box.catch(() => boxes.delete(config.encryption));
    boxes.set(config.encryption, box);
  }
  return box;
}
