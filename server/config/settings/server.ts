import path from "node:path";
import { z } from "zod";
import { settingsOf } from "./setting";
import { httpUrl, text, wholeNumber } from "./value-types";

/**
 * The server process: its mode, port, listen address, public origin and local state directory (read through
 * server/config/settings.ts).
 */
const setting = settingsOf("Server");

export const serverSettings = {
  NODE_ENV: setting(z.enum(["development", "production", "test"], { error: () => "must be development, production or test" }).default("development"), {
    description: "`production` under `npm start` (the script sets it), `development` under `npm run dev`. Production with `DATABASE_URL` requires the secrets and the public URL (see the rules below).",
    default: "`development`",
  }),
  PORT: setting(wholeNumber(1, 65_535).default(3000), { description: "HTTP port of the server.", default: "`3000`" }),
  HOST: setting(text().optional(), {
    description: "Address the server listens on. `HOST=0.0.0.0` accepts other machines in embedded mode.",
    default: "`127.0.0.1` in embedded mode; all interfaces with `DATABASE_URL`",
  }),
  APP_BASE_URL: setting(httpUrl().optional(), {
    description: "The public origin of the app: links in emails and webhooks, recording URLs, the OpenAPI document's server (never the request's `Host`).",
    default: "`NEXTAUTH_URL`, else `http://localhost:$PORT`",
    sameOnEveryInstance: true,
  }),
  DATA_DIR: setting(text().default("./.data").transform((value) => path.resolve(value)), {
    description: "Local state: embedded PostgreSQL, local recordings, generated secrets, `demo.json`, the calendar simulator's state.",
    default: "`./.data`",
  }),
};
