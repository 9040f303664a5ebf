import { describe, expect, it } from "vitest";
import { EMBEDDED_BASE_URL, embeddedFetch, registerCheckpointTarget, type CheckpointBody } from "@/inngest/embedded/transport";

/** The checkpoint call as the SDK makes it (checkpointStepsAsync): a URL object and a string body. */
function checkpoint(runId: string, body: CheckpointBody): Promise<Response> {
  return embeddedFetch(new URL(`/v1/checkpoint/${encodeURIComponent(runId)}/async`, EMBEDDED_BASE_URL), {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
}

describe("embedded transport: checkpoints", () => {
  it("hands the SDK's checkpoint (URL object, string body) to the request's target and answers with its status", async () => {
    const received: CheckpointBody[] = [];
    const stop = registerCheckpointTarget("job-1.lease-a", async (body) => {
      received.push(body);
      return received.length === 1 ? { status: 200, body: {} } : { status: 409, body: { error: "yield" } };
    });
    try {
      const applied = await checkpoint("run-1", { run_id: "run-1", qi_id: "job-1.lease-a", steps: [{ id: "a", op: "StepRun", data: 1 }] });
      expect(applied.status).toBe(200);
      // The SDK reads only the status of an applied checkpoint: no body is built for it.
      expect(applied.body).toBeNull();
      const yielded = await checkpoint("run-1", { run_id: "run-1", qi_id: "job-1.lease-a", steps: [] });
      expect(yielded.status).toBe(409);
      expect(await yielded.json()).toEqual({ error: "yield" });
      expect(received).toEqual([
        { run_id: "run-1", qi_id: "job-1.lease-a", steps: [{ id: "a", op: "StepRun", data: 1 }] },
        { run_id: "run-1", qi_id: "job-1.lease-a", steps: [] },
      ]);
    } finally {
      stop();
    }
    // Once the request is over, its checkpoints are refused (stale dispatch), never applied.
    const late = await checkpoint("run-1", { run_id: "run-1", qi_id: "job-1.lease-a", steps: [] });
    expect(late.status).toBe(409);
    expect(received).toHaveLength(2);
  });

  it("answers other Inngest API paths with 501, whether given a URL object or a string", async () => {
    const fromUrl = await embeddedFetch(new URL("/v1/realtime/publish", EMBEDDED_BASE_URL), { method: "POST", body: "{}" });
    const fromString = await embeddedFetch(`${EMBEDDED_BASE_URL}v1/signals`, { method: "POST", body: "{}" });
    expect(fromUrl.status).toBe(501);
    expect(fromString.status).toBe(501);
  });
});
