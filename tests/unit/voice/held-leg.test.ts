import { describe, expect, it } from "vitest";
import { HeldLeg, type LegSend } from "@/server/voice/conversation/held-leg";
import type { CallerFrame, MediaLeg, MediaLegEvents } from "@/server/voice/conversation/media-leg";

/** Our port, in memory (a test double of the carrier's side). */
function memoryLeg() {
  const listeners = new Map<string, Set<(...args: never[]) => void>>();
  const sent: string[] = [];
  const leg: MediaLeg & { open: boolean } = {
    started: { streamId: "MZ1", carrierCallId: "CA1", parameters: {}, continuousClock: true },
    open: true,
    on<E extends keyof MediaLegEvents>(event: E, listener: MediaLegEvents[E]) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener as never);
      return () => void set.delete(listener as never);
    },
    sendAudio: (audio) => void sent.push(`audio:${audio.length}`),
    mark: (name) => void sent.push(`mark:${name}`),
    clear: () => void sent.push("clear"),
    close: () => {},
  };
  const emit = (event: keyof MediaLegEvents, ...args: unknown[]) => {
    for (const listener of listeners.get(event) ?? []) (listener as (...a: unknown[]) => void)(...args);
  };
  return { leg, sent, emit };
}

const frame = (timestampMs: number): CallerFrame => ({ audio: Buffer.alloc(160, timestampMs % 256), timestampMs });

describe("HeldLeg: the caller's frames wait for the model", () => {
  it("holds frames until release (the oldest dropped past the limit), then delivers them in order and passes new ones straight through; marks and keys are never held", () => {
    const { leg, emit } = memoryLeg();
    const held = new HeldLeg(leg, 3);
    const frames: number[] = [];
    const marks: string[] = [];
    held.on("audio", (f) => frames.push(f.timestampMs!));
    held.on("mark", (name) => marks.push(name));
    for (const t of [0, 20, 40, 60]) emit("audio", frame(t));
    emit("mark", "m1");
    expect(frames).toEqual([]);
    expect(marks).toEqual(["m1"]);
    held.release();
    expect(frames).toEqual([20, 40, 60]);
    emit("audio", frame(80));
    held.release();
    expect(frames).toEqual([20, 40, 60, 80]);
  });

  it("lets observers see every send, and sends nothing once the leg is closed", () => {
    const { leg, sent } = memoryLeg();
    const held = new HeldLeg(leg);
    const seen: LegSend["kind"][] = [];
    held.observeSends((s) => seen.push(s.kind));
    held.sendAudio(Buffer.alloc(160));
    held.mark("m1");
    held.clear();
    leg.open = false;
    held.sendAudio(Buffer.alloc(160));
    held.clear();
    expect(sent).toEqual(["audio:160", "mark:m1", "clear"]);
    expect(seen).toEqual(["audio", "mark", "clear"]);
  });
});
