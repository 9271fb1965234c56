import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";

/** `/app/workflows`: not built yet. */
export const workflowsPages = new Hono<AppEnv>();
