import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * What must never appear in a log line: a whole API key, a webhook signing secret, or a phone number in E.164 form
 * (the logger masks numbers to their last 4 digits: `+*******0171`). The suite's global teardown runs this over
 * every log file of the run (tests/setup/global-setup.ts); tests/unit/observability/log-scan.test.ts shows it finds them.
 */
const LEAKS: Array<{ kind: string; pattern: RegExp }> = [
  { kind: "API key", pattern: /ock_[a-z0-9]{40}/gi },
  { kind: "webhook secret", pattern: /whsec_[A-Za-z0-9+/=]{20,}/g },
  { kind: "phone number", pattern: /\+[1-9]\d{7,14}(?!\d)/g },
];

export type LogLeak = { file: string; line: number; kind: string; match: string };

export function findLogLeaks(text: string, file = "(text)"): LogLeak[] {
  const leaks: LogLeak[] = [];
  text.split("\n").forEach((content, index) => {
    for (const { kind, pattern } of LEAKS) {
      for (const match of content.matchAll(pattern)) leaks.push({ file, line: index + 1, kind, match: match[0] });
    }
  });
  return leaks;
}

export function scanLogDirectory(dir: string): { files: number; lines: number; leaks: LogLeak[] } {
  let files = 0;
  let lines = 0;
  const leaks: LogLeak[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".log")) continue;
    const text = readFileSync(path.join(dir, name), "utf8");
    files++;
    lines += text.split("\n").filter(Boolean).length;
    leaks.push(...findLogLeaks(text, name));
  }
  return { files, lines, leaks };
}
