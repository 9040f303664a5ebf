import { decodeUlawSample } from "../g711";
import { SAMPLE_RATE } from "./types";

/**
 * What one 20 ms frame of callee audio looks like to the classifier: its loudness and how much of its energy one pure
 * tone holds (Goertzel filters). A tone's `fraction` is its share of the frame's energy: ≈ 1 for a clean sine on the
 * filter's frequency, well under 0.5 for speech (energy spread over the harmonics of a moving pitch) or a chord.
 */
export type FrameFeatures = {
  rms: number;
  /** The strongest frequency of the scan grid (350–2200 Hz, 25 Hz steps) and its share of the energy. */
  toneHz: number;
  toneFraction: number;
  /** Ringback (440 + 480 Hz, North American): the two filters' shares added. */
  ringbackFraction: number;
};

const GRID_HZ = Array.from({ length: 75 }, (_, index) => 350 + index * 25);
const RINGBACK_HZ = [440, 480];

/** Share of the frame's energy at `hz` (1 for a pure sine there), by the Goertzel recurrence. */
export function toneShare(samples: ArrayLike<number>, hz: number, energy = frameEnergy(samples)): number {
  if (energy <= 0) return 0;
  const coefficient = 2 * Math.cos((2 * Math.PI * hz) / SAMPLE_RATE);
  let previous = 0;
  let beforePrevious = 0;
  for (let index = 0; index < samples.length; index += 1) {
    const current = samples[index]! + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  const power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
  return (2 * power) / (samples.length * energy);
}

function frameEnergy(samples: ArrayLike<number>): number {
  let sum = 0;
  for (let index = 0; index < samples.length; index += 1) sum += samples[index]! * samples[index]!;
  return sum;
}

export function analyseFrame(samples: ArrayLike<number>): FrameFeatures {
  const energy = frameEnergy(samples);
  const rms = Math.sqrt(energy / Math.max(1, samples.length));
  if (rms < 30) return { rms, toneHz: 0, toneFraction: 0, ringbackFraction: 0 };
  let toneHz = 0;
  let toneFraction = 0;
  for (const hz of GRID_HZ) {
    const share = toneShare(samples, hz, energy);
    if (share > toneFraction) [toneHz, toneFraction] = [hz, share];
  }
  const ringbackFraction = RINGBACK_HZ.reduce((sum, hz) => sum + toneShare(samples, hz, energy), 0);
  return { rms, toneHz, toneFraction: Math.min(1, toneFraction), ringbackFraction };
}

/** A µ-law frame (as Twilio Media Streams carry it) as 16-bit linear samples. */
export function decodeUlawFrame(bytes: Uint8Array): Int16Array {
  const samples = new Int16Array(bytes.length);
  for (let index = 0; index < bytes.length; index += 1) samples[index] = decodeUlawSample(bytes[index]!);
  return samples;
}
