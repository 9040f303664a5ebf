import type { FrameFeatures } from "./frame-features";
import { FRAME_MS } from "./types";

/**
 * Runs of pure-tone frames, named by what telephony uses them for:
 *  - `sit`: a Special Information Tone segment (913.8, 1370.6, 1776.7 Hz, 274 or 380 ms each) — an intercept follows;
 *  - `ced`: the 2100 Hz answer tone of a fax machine (2.6–4 s); `cng`: the 1100 Hz calling tone (0.5 s every 3 s);
 *  - `beep`: any other steady tone of 150 ms to 1.6 s (a voicemail beep is 1000 Hz on many systems, not on all);
 *  - `ringback`: the 440 + 480 Hz ringing tone (2 s on, 4 s off) of a line that is still ringing or queueing.
 */
export type ToneKind = "sit" | "ced" | "cng" | "beep" | "ringback";
export type ToneRun = { kind: ToneKind; hz: number; startMs: number; endMs: number };

type OpenRun = { hz: number; startMs: number; frames: number; lost: number; ringback: boolean };

const TONE_SHARE = 0.6;
const SIT_HZ = [913.8, 1370.6, 1776.7];

function nameRun(hz: number, durationMs: number): ToneKind | null {
  if (hz >= 2050 && hz <= 2150 && durationMs >= 800) return "ced";
  if (hz >= 1075 && hz <= 1125 && durationMs >= 350 && durationMs <= 750) return "cng";
  if (SIT_HZ.some((sitHz) => Math.abs(hz - sitHz) <= 20) && durationMs >= 200 && durationMs <= 450) return "sit";
  if (durationMs >= 150 && durationMs <= 1600) return "beep";
  return null;
}

export class ToneTracker {
  readonly runs: ToneRun[] = [];
  private open: OpenRun | null = null;

  /** Feeds one frame starting at `atMs`; returns the run it closed, if any. */
  push(frame: FrameFeatures, atMs: number): ToneRun | null {
    const ringback = frame.ringbackFraction >= TONE_SHARE && frame.toneHz < 520;
    const tonal = ringback || frame.toneFraction >= TONE_SHARE;
    const open = this.open;
    // One or two lost packets (digital silence) inside a tone do not cut it in two.
    if (open && frame.rms < 1 && open.lost < 2) {
      open.lost += 1;
      return null;
    }
    if (open && tonal && open.ringback === ringback && (ringback || Math.abs(frame.toneHz - open.hz) <= 50)) {
      open.frames += open.lost + 1;
      open.lost = 0;
      return null;
    }
    const closed = open ? this.close(open, atMs) : null;
    this.open = tonal ? { hz: ringback ? 460 : frame.toneHz, startMs: atMs, frames: 1, lost: 0, ringback } : null;
    return closed;
  }

  /** A tone still sounding at `nowMs` and how long it has lasted (a fax's CED is known before it ends). */
  sounding(): { hz: number; startMs: number; durationMs: number; ringback: boolean } | null {
    return this.open ? { hz: this.open.hz, startMs: this.open.startMs, durationMs: this.open.frames * FRAME_MS, ringback: this.open.ringback } : null;
  }

  /** Whether the runs so far hold a SIT: at least two of its segments, rising, back to back. */
  hasSit(): boolean {
    const sits = this.runs.filter((run) => run.kind === "sit");
    for (let index = 1; index < sits.length; index += 1) {
      if (sits[index]!.startMs - sits[index - 1]!.endMs <= 120 && sits[index]!.hz > sits[index - 1]!.hz) return true;
    }
    return false;
  }

  private close(open: OpenRun, atMs: number): ToneRun | null {
    const durationMs = open.frames * FRAME_MS;
    const kind: ToneKind | null = open.ringback ? (durationMs >= 600 ? "ringback" : null) : nameRun(open.hz, durationMs);
    if (!kind) return null;
    const run = { kind, hz: open.hz, startMs: open.startMs, endMs: atMs - open.lost * FRAME_MS };
    this.runs.push(run);
    return run;
  }
}
