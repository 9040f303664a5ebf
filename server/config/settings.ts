import path from "node:path";

/** Where embedded-mode state lives: Postgres data, recordings, generated secrets, the demo credentials. */
export function dataDir(): string {
  return path.resolve(process.env.DATA_DIR ?? "./.data");
}

export function appPort(): number {
  return Number(process.env.PORT ?? 3000);
}

export function appBaseUrl(): string {
  return process.env.APP_BASE_URL ?? process.env.NEXTAUTH_URL ?? `http://localhost:${appPort()}`;
}

/** Production mode: an external database is configured (used for the SSRF guard and credential login defaults). */
export function isEmbeddedMode(): boolean {
  return !process.env.DATABASE_URL || process.env.EMBEDDED_MODE === "1";
}
