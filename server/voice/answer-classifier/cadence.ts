import type { FrameFeatures } from "./frame-features";
import { FRAME_MS } from "./types";

/**
 * Speech and silence on the callee's side, by energy against a tracked noise floor: utterances (a pause of 300 ms
 * ends one), the silence since the last sound, and unbroken sound (music keeps the line busy without the gaps between
 * words that speech has). Tone frames are not speech.
 */
export type Utterance = { startMs: number; endMs: number | null };

const MIN_SPEECH_RMS = 180;
const FLOOR_TIMES = 2.8;
const PAUSE_ENDS_UTTERANCE_MS = 300;
const MIN_UTTERANCE_MS = 100;
export const MUSIC_MS = 2500;

export class CadenceTracker {
  readonly utterances: Utterance[] = [];
  private noiseFloor = 0;
  private lastActiveEndMs = -1;
  private soundRunStartMs: number | null = null;
  private nowMs = 0;
  private digitalSilenceFrames = 0;
  /** Set once the line sounded `MUSIC_MS` without a break. */
  musicHeard = false;

  push(frame: FrameFeatures, atMs: number, tonal: boolean): void {
    this.nowMs = atMs + FRAME_MS;
    // Digital silence is a lost packet or a muted line: it says nothing about the noise floor, and one or two such
    // frames do not break music.
    const digitalSilence = frame.rms < 1;
    this.digitalSilenceFrames = digitalSilence ? this.digitalSilenceFrames + 1 : 0;
    // The floor starts at the first frame (an answered line opens with its noise, or with digital silence: floor ~0).
    if (this.noiseFloor === 0) this.noiseFloor = Math.max(1, frame.rms);
    else if (!digitalSilence) this.noiseFloor = frame.rms < this.noiseFloor ? Math.max(1, frame.rms) : this.noiseFloor * 1.0015;
    const loud = frame.rms > Math.max(MIN_SPEECH_RMS, this.noiseFloor * FLOOR_TIMES);
    if (loud && !tonal) this.soundRunStartMs ??= atMs;
    else if (!(digitalSilence && this.digitalSilenceFrames <= 2)) this.soundRunStartMs = null;
    if (this.unbrokenSoundMs >= MUSIC_MS) this.musicHeard = true;
    const current = this.utterances.at(-1);
    if (loud && !tonal) {
      if (!current || current.endMs !== null) this.utterances.push({ startMs: atMs, endMs: null });
      this.lastActiveEndMs = this.nowMs;
    } else if (current && current.endMs === null && this.nowMs - this.lastActiveEndMs >= PAUSE_ENDS_UTTERANCE_MS) {
      current.endMs = this.lastActiveEndMs;
      // A click or a tone's edge, not speech.
      if (current.endMs - current.startMs < MIN_UTTERANCE_MS) this.utterances.pop();
    }
  }

  get firstSpeechMs(): number | null {
    return this.utterances[0]?.startMs ?? null;
  }

  /** Silence since the last speech frame (0 while speaking; the whole time when nobody spoke yet). */
  get silenceMs(): number {
    return this.lastActiveEndMs < 0 ? this.nowMs : this.nowMs - this.lastActiveEndMs;
  }

  get speaking(): boolean {
    return this.lastActiveEndMs === this.nowMs;
  }

  /** How long the line has sounded without a single quiet frame (speech has gaps between words; music need not). */
  get unbrokenSoundMs(): number {
    return this.soundRunStartMs === null ? 0 : this.nowMs - this.soundRunStartMs;
  }

  /** Total speech so far, in ms. */
  get speechMs(): number {
    return this.utterances.reduce((sum, utterance) => sum + ((utterance.endMs ?? this.lastActiveEndMs) - utterance.startMs), 0);
  }
}
