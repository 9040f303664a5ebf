import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests of the console in Debian's Chromium (never a downloaded browser) against the real built app:
 * `npm run build` then `npm start` on a fresh temporary DATA_DIR (embedded Postgres, first-start demo seed) and a free
 * port. The app is configured with an OIDC issuer on another free port; the OIDC test starts that provider itself.
 *
 * The values are put into process.env once, in the runner process: workers inherit them, so every process agrees.
 * E2E_SKIP_BUILD=1 reuses an existing `.next` build (faster local iterations).
 */
function freePort(): string {
  return execFileSync(process.execPath, [
    "-e",
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
  ]).toString();
}

process.env.E2E_PORT ??= freePort();
process.env.E2E_OIDC_PORT ??= freePort();
process.env.E2E_DATA_DIR ??= mkdtempSync(path.join(os.tmpdir(), "ocs-e2e-"));
process.env.E2E_OIDC_CLIENT_ID ??= "console-e2e";
process.env.E2E_OIDC_CLIENT_SECRET ??= "console-e2e-secret-0123456789abcdef";

const baseURL = `http://localhost:${process.env.E2E_PORT}`;
const startCommand = process.env.E2E_SKIP_BUILD === "1" ? "npm start" : "npm run build && npm start";

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results/e2e",
  fullyParallel: false,
  workers: 1,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"]],
  use: {
    baseURL,
    viewport: { width: 1280, height: 800 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    acceptDownloads: true,
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--headless",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
  webServer: {
    command: startCommand,
    url: `${baseURL}/sign-in`,
    timeout: 600_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      // Embedded mode on the temp DATA_DIR, whatever the calling shell has set.
      DATABASE_URL: "",
      DATA_DIR: process.env.E2E_DATA_DIR,
      PORT: process.env.E2E_PORT,
      NEXTAUTH_URL: baseURL,
      AUTH_OIDC_ISSUER: `http://127.0.0.1:${process.env.E2E_OIDC_PORT}`,
      AUTH_OIDC_CLIENT_ID: process.env.E2E_OIDC_CLIENT_ID,
      AUTH_OIDC_CLIENT_SECRET: process.env.E2E_OIDC_CLIENT_SECRET,
      AUTH_OIDC_NAME: "Test IdP",
      // The embedded calendar simulator picks a free port of its own and records it in this DATA_DIR.
      CHILI_PIPER_SIMULATOR_PORT: "",
      // Live calls last long enough to follow and hang up on the Live calls page (a 2-minute call: ~12 s).
      VOICE_SIMULATOR_MS_PER_SECOND: "100",
      // The specs dial simulated US numbers whenever they run: quiet hours (tests/integration/compliance) would hold
      // every call until 8:00 in the contact's zone.
      COMPLIANCE_QUIET_HOURS: "off",
      VOICE_SIMULATOR_MAX_CONVERSATION_MS: "30000",
      // One JSON line per request would bury the test report; E2E_LOG_LEVEL=info brings them back when debugging.
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? "warn",
    },
  },
});
