import { defineConfig } from "drizzle-kit";

// Generates the SQL migrations in migrations/ from src/db/schema.ts (`npm run db:generate`).
// wrangler applies them to D1 (`npm start` locally, `wrangler d1 migrations apply` when deployed).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
