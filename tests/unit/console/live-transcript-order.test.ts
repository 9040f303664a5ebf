import { describe, expect, it } from "vitest";
import { lastCursor, mergeTranscriptLines } from "@/app/(dashboard)/[orgId]/live-calls/transcript-order";

const line = (cursor: number, offsetMs: number, text: string) => ({ cursor, offsetMs, text });

describe("the live call's transcript", () => {
  it("shows a contact's line stored late (its transcription completed after the agent began answering) before the answer", () => {
    const shown = [line(1, 0, "Customer: Hello?"), line(2, 900, "Agent: Hi, this is Ava"), line(3, 6200, "Agent: No problem")];
    const fetched = [line(4, 4100, "Customer: Not right now")];
    const merged = mergeTranscriptLines(shown, fetched);
    expect(merged.map((entry) => entry.text)).toEqual(["Customer: Hello?", "Agent: Hi, this is Ava", "Customer: Not right now", "Agent: No problem"]);
    // The next fetch starts after the last line stored, not after the last one shown.
    expect(lastCursor(merged)).toBe(4);
    expect(lastCursor([])).toBeUndefined();
  });

  it("keeps each line once when a fetch overlaps what is shown; same moment: storage order", () => {
    const shown = [line(1, 0, "a"), line(2, 500, "b")];
    const merged = mergeTranscriptLines(shown, [line(2, 500, "b"), line(3, 500, "c")]);
    expect(merged.map((entry) => entry.text)).toEqual(["a", "b", "c"]);
  });
});
