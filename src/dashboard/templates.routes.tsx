import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";

/** `/app/templates`: not built yet. */
export const templatesPages = new Hono<AppEnv>();
