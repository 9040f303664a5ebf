import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * The production-assembly tier (tests/assembly): each file starts the built app as `npm start` does and talks to it
 * over HTTP and WebSocket only. Files run one after another: each app is a full server (PostgreSQL, Next, runner).
 */
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["tests/assembly/**/*.test.ts"],
    testTimeout: 240_000,
    hookTimeout: 300_000,
    pool: "forks",
    fileParallelism: false,
    maxWorkers: 1,
  },
});
