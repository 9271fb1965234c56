import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";

/** `/app/tools`: not built yet. */
export const toolsPages = new Hono<AppEnv>();
