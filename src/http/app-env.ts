import type { Env } from "../env";
import type { Config } from "../core/config";
import type { Principal } from "../core/principal";
import type { Db } from "../db/client";

/** The Hono environment shared by every router: bindings plus per-request services. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    config: Config;
    db: Db;
    /** Set by the authenticate middleware on every /v1 route that needs a credential. */
    principal: Principal;
  };
}
