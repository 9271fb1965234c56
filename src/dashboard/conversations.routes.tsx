import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";

/** `/app/conversations`: not built yet. */
export const conversationsPages = new Hono<AppEnv>();
