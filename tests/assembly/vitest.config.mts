import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * tests/assembly against the built app (`npm run build` first): `npx vitest run --config tests/assembly/vitest.config.mts`.
 * No embedded test database: the app brings its own. (A stand-in until the assembly tier joins the main configuration.)
 */
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname, "../..") } },
  test: {
    root: path.resolve(import.meta.dirname, "../.."),
    include: ["tests/assembly/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
