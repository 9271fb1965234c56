import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";

/** `/app/audit`: not built yet. */
export const auditPages = new Hono<AppEnv>();
