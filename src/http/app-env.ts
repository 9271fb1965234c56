import type { Config } from "../core/config";
import type { Runtime, ServiceContext } from "../core/context";
import type { Principal } from "../core/principal";
import type { Env } from "../env";
import type { Db } from "../db/client";

/** The Hono environment shared by every router: bindings plus per-request services. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** What every request gets, credential or not; `db` and `config` are its parts. */
    runtime: Runtime;
    config: Config;
    db: Db;
    /** Set by the authenticate middleware on every /v1 route that needs a credential. */
    principal: Principal;
    /** The service context of the authenticated caller: what routes hand to services. */
    ctx: ServiceContext;
  };
}
