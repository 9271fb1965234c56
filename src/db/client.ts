import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = ReturnType<typeof build>;

const build = (d1: D1Database) => drizzle(d1, { schema });

// Building the client walks the whole schema; the binding is the same for every request an
// isolate serves, so it is built once per binding.
const clients = new WeakMap<D1Database, Db>();

export function createDb(d1: D1Database): Db {
  let db = clients.get(d1);
  if (!db) {
    db = build(d1);
    clients.set(d1, db);
  }
  return db;
}
