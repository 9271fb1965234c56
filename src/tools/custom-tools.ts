import type { ServiceContext } from "../core/context";
import { loadCustomPlatform } from "../connections/custom/resolve";
import type { ToolReference } from "./catalog";

/**
 * A custom platform's tool as a platform tool, loading that one platform of the person's (not the
 * others): undefined when it is not theirs (or gone) or has no such operation, so a call answers 404.
 */
export async function customToolOrAsIs(
  ctx: ServiceContext,
  reference: ToolReference | undefined,
): Promise<Exclude<ToolReference, { kind: "custom" }> | undefined> {
  if (reference?.kind !== "custom") return reference;
  const platform = await loadCustomPlatform(ctx, reference.platformId);
  const tool = platform?.tools.find((t) => t.action === reference.action);
  return platform && tool ? { kind: "platform", platform, tool } : undefined;
}
