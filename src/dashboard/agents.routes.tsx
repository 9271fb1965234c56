import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";

/** `/app/agents`: not built yet. */
export const agentsPages = new Hono<AppEnv>();
