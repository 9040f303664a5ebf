import { settingsOf } from "./setting";
import { httpUrl, wholeNumber } from "./value-types";

/** The calendar provider, Chili Piper, or its embedded simulator (server/providers/chili-piper/config.ts, docs/meetings.md). */
const setting = settingsOf("Calendar provider");

export const calendarSettings = {
  CHILI_PIPER_BASE_URL: setting(httpUrl().optional(), {
    description: "The Chili Piper Edge API base URL (docs/meetings.md).",
    default: "this instance's calendar simulator in embedded mode (and with `SEED_DEMO=1`, and in `npm run seed`); else `https://fire.chilipiper.com/api/fire-edge`",
    sameOnEveryInstance: true,
  }),
  CHILI_PIPER_SIMULATOR_PORT: setting(wholeNumber(1, 65_535).optional(), {
    description: "Pins the embedded calendar simulator's port.",
    default: "a free port, recorded in `$DATA_DIR/chili-piper-simulator.endpoint.json`",
  }),
  CHILI_PIPER_TIMEOUT_MS: setting(wholeNumber(100, 120_000).default(5000), {
    description: "Per-request timeout of calendar provider calls.",
    default: "`5000`",
  }),
};
