import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import path from "node:path";
import { eq } from "drizzle-orm";
import { describe, expect, inject, it } from "vitest";
import { inngestRuns } from "@/db/schema/jobs";
import { useTestDb } from "../../helpers/db";
import { createTestClock, startTestInngest } from "../../helpers/inngest";
import { createKillFunction, createMarksTable, marksOf } from "./fixtures/kill-function";

const db = useTestDb();

/** Starts the child runner and resolves once it is inside the second step; returns a kill -9. */
function startChild(partition: string, key: string): Promise<{ kill: () => Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "fixtures/kill-child.ts")], {
    cwd: path.resolve(import.meta.dirname, "../../.."),
    env: { ...process.env, DATABASE_URL: inject("databaseUrl"), KILL_TEST_HANG: "1", KILL_TEST_PARTITION: partition, KILL_TEST_KEY: key },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += String(chunk)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      if (String(chunk).includes("IN-STEP-TWO")) {
        resolve({
          kill: async () => {
            child.kill("SIGKILL");
            await exited;
          },
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`the child runner exited (${code}) before its second step: ${stderr}`)));
  });
}

describe("embedded runner: kill -9 in the middle of a request", () => {
  it("loses no finished step and runs none twice: another runner takes the run over once the lease expires", { timeout: 90_000 }, async () => {
    await createMarksTable(db);
    const partition = `test-kill-${randomBytes(6).toString("hex")}`;
    const key = randomUUID();
    const child = await startChild(partition, key);
    // The first step finished (and was checkpointed) in the same request that is now inside the second.
    expect(await marksOf(db, key)).toEqual({ one: 1, two: 1 });
    await child.kill();

    const clock = createTestClock();
    const jobs = await startTestInngest({ db, functions: [createKillFunction(() => db)], partition, clock });
    try {
      await jobs.drain();
      // The dead runner's lease still holds: nothing runs until it expires.
      expect(await marksOf(db, key)).toEqual({ one: 1, two: 1 });
      await jobs.advance(61_000);
      const [run] = (await db.select().from(inngestRuns).where(eq(inngestRuns.partition, partition))).filter(
        (candidate) => (candidate.event.data as { key: string }).key === key,
      );
      expect(run).toMatchObject({ status: "completed", output: "done" });
      // The step the process died in ran again (at least once); the finished one did not.
      expect(await marksOf(db, key)).toEqual({ one: 1, two: 2, three: 1 });
    } finally {
      await jobs.stop();
    }
  });
});
