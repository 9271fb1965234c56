import type { ServiceContext } from "../core/context";
import { customPlatformsOf } from "../connections/custom/resolve";
import type { ToolReference } from "./catalog";

/**
 * A custom platform's tool as a platform tool, once the person's platforms are loaded: undefined
 * when the platform is not theirs (or gone) or has no such operation, so a call answers 404.
 */
export async function customToolOrAsIs(
  ctx: ServiceContext,
  reference: ToolReference | undefined,
): Promise<Exclude<ToolReference, { kind: "custom" }> | undefined> {
  if (reference?.kind !== "custom") return reference;
  const platform = (await customPlatformsOf(ctx)).get(reference.platformId);
  const tool = platform?.tools.find((t) => t.action === reference.action);
  return platform && tool ? { kind: "platform", platform, tool } : undefined;
}
