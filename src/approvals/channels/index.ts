import type { ServiceContext } from "../../core/context";
import type { Approval } from "../../db/schema";
import type { NotifyChannel } from "./schema";

/** Tells each channel of a new approval (Slack message, email with a link, signed webhook). */
export async function announceApproval(_ctx: ServiceContext, _approval: Approval, _channels: NotifyChannel[]): Promise<void> {}

/** Updates what the channels were sent once the approval is decided (the Slack message says who decided what). */
export async function settleAnnouncements(_ctx: ServiceContext, _approval: Approval): Promise<void> {}
