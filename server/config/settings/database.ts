import { settingsOf } from "./setting";
import { flag, urlWithProtocols, wholeNumber } from "./value-types";

/** The database: an external PostgreSQL or the embedded one, the pool, demo seeding (db/index.ts, scripts/start.ts). */
const setting = settingsOf("Database");

export const databaseSettings = {
  DATABASE_URL: setting(urlWithProtocols(["postgres:", "postgresql:"], "postgres://").optional(), {
    description: "PostgreSQL ≥ 15 (`postgres://user:password@host:5432/db`). Unset: embedded PostgreSQL in `$DATA_DIR/pg`. Migrations are applied on every start.",
    default: "embedded PostgreSQL",
    secret: true,
    sameOnEveryInstance: true,
  }),
  DATABASE_POOL_SIZE: setting(wholeNumber(1, 500).default(10), {
    description: "Connections this instance keeps open (instances × pool size must stay under the server's `max_connections`).",
    default: "`10`",
  }),
  SEED_DEMO: setting(flag().default(false), {
    description: "`1`: seed a demo dataset into an external database on the first start (embedded mode always does). The instance is then a demo: its calendar provider is the local simulator unless `CHILI_PIPER_BASE_URL` is set.",
    default: "off",
  }),
  EMBEDDED_MODE: setting(flag().default(false), {
    description: "Set by `npm start` when it started the embedded PostgreSQL itself (the app then behaves as a local demo). Do not set it.",
    default: "set by the start script",
    internal: true,
  }),
};
