import { existsSync, readFileSync, statSync } from "node:fs";
import { getConfig } from "@/server/config/env";

export type LogLine = Record<string, unknown> & { level: string; msg: string; time: string };

/** This test process's log file (tests/setup/per-file.ts sets LOG_FILE). */
export function logFile(): string {
  const file = getConfig().LOG_FILE;
  if (!file) throw new Error("LOG_FILE is not set: tests/setup/per-file.ts sets it.");
  return file;
}

/**
 * The log lines written from now on (by this process, and by servers it started with the same LOG_FILE). The logger
 * writes the file synchronously, so a line is readable as soon as the code that logged it returned.
 */
export function captureLogs(file: string = logFile()): { lines: () => LogLine[]; text: () => string } {
  const start = existsSync(file) ? statSync(file).size : 0;
  const text = () => (existsSync(file) ? readFileSync(file).subarray(start).toString("utf8") : "");
  return {
    text,
    lines: () =>
      text()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as LogLine),
  };
}
