import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";

/** `/app/connections`: not built yet. */
export const connectionsPages = new Hono<AppEnv>();
