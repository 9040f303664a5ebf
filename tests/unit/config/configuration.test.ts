import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderConfigurationDoc } from "@/server/config/configuration-doc";
import { ConfigError, loadConfig, SETTING_NAMES } from "@/server/config/env";

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("configuration module (server/config/env.ts)", () => {
  it("runs on defaults with no settings at all", () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.LOG_LEVEL).toBe("info");
    expect(config.SHUTDOWN_TIMEOUT_SECONDS).toBe(25);
  });

  it("refuses a bad setting with a message naming it and the value", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(/PORT: .*"eighty"/);
    expect(problemsOf({ LOG_LEVEL: "loud" })).toEqual([expect.stringMatching(/^LOG_LEVEL: .*"loud"/)]);
    expect(problemsOf({ SHUTDOWN_TIMEOUT_SECONDS: "0" })).toEqual([expect.stringMatching(/^SHUTDOWN_TIMEOUT_SECONDS: /)]);
    expect(problemsOf({ APP_BASE_URL: "not a url" })).toEqual([expect.stringMatching(/^APP_BASE_URL: /)]);
  });

  it("lists every problem in one message, cross-field rules included", () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: "99999", LOG_LEVEL: "loud", RECORDING_STORAGE: "s3", ANALYSIS_LLM_URL: "http://127.0.0.1:1/v1" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const { problems, message } = caught as ConfigError;
    expect(problems).toHaveLength(4);
    for (const name of ["PORT", "LOG_LEVEL", "RECORDING_S3_BUCKET", "ANALYSIS_LLM_MODEL"]) expect(message).toContain(name);
    expect(message).toMatch(/^Invalid configuration \(4 problems\)/);
  });

  it("requires the shared secrets in production with an external database, never echoing secret values", () => {
    const problems = problemsOf({ NODE_ENV: "production", DATABASE_URL: "postgres://u:p@db.example:5432/app", APP_SECRET: "x".repeat(40) });
    expect(problems.join("\n")).toMatch(/NEXTAUTH_SECRET is not set/);
    expect(problems.join("\n")).toMatch(/APP_ENCRYPTION_KEY is not set/);
    expect(problems.join("\n")).toMatch(/APP_BASE_URL \(or NEXTAUTH_URL\) is not set/);
    expect(problems.join("\n")).not.toMatch(/APP_SECRET is not set/);
    // A secret with a bad value is named, its value is not shown.
    const bad = problemsOf({ APP_ENCRYPTION_KEY: "top-secret-but-short" });
    expect(bad).toEqual([expect.stringMatching(/^APP_ENCRYPTION_KEY: /)]);
    expect(bad[0]).not.toContain("top-secret-but-short");
  });

  it("stops `npm run seed` before it does anything, with the one message on stderr", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", path.resolve("scripts/seed.ts"), "--json"], {
      env: { ...process.env, PORT: "eighty", LOG_LEVEL: "loud", LOG_FILE: "" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("Invalid configuration (2 problems)");
    expect(result.stderr).toContain('PORT: must be a whole number (got "eighty")');
    expect(result.stderr).toContain("LOG_LEVEL:");
  });

  it("docs/configuration.md is what `npm run docs:config` generates, and documents every setting", () => {
    const committed = readFileSync(path.resolve("docs/configuration.md"), "utf8");
    expect(committed, "docs/configuration.md is stale: run `npm run docs:config`").toBe(renderConfigurationDoc());
    for (const name of SETTING_NAMES) expect(committed).toContain(`| \`${name}\` |`);
    // Its "Code" table names every file that declares settings.
    for (const file of readdirSync(path.resolve("server/config/settings"))) expect(committed).toContain(`\`${file}\``);
  });

  it("every environment variable the code reads is declared (no process.env reads outside the module)", () => {
    const result = spawnSync("grep", ["-rnE", "process\\.env(\\.|\\[)", "server", "inngest", "db", "app", "scripts", "--include=*.ts", "--include=*.tsx"], { encoding: "utf8" });
    const reads = result.stdout
      .split("\n")
      .filter(Boolean)
      .filter((line) => !line.startsWith("server/config/env.ts:"))
      // scripts/start.ts writes what it generates into process.env (then validates it again); comments mention console.log.
      .filter((line) => !/Object\.assign\(process\.env/.test(line));
    expect(reads).toEqual([]);
  });
});
