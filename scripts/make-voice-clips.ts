/**
 * Regenerates the voice simulators' speech clips (server/simulators/voice-clips/audio/*.ulaw) from the texts in
 * server/simulators/voice-clips/clips.ts with Debian's espeak-ng and sox: `apt-get install -y espeak-ng sox`, then
 * `npx tsx scripts/make-voice-clips.ts [clip-id …]` (only the named clips when given: the others stay byte for byte).
 * The clips are committed, so tests and CI never need espeak-ng or sox.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { VOICE_CLIPS, VOICE_CLIPS_DIR } from "../server/simulators/voice-clips/clips";

const VOICES = { callee: "en-us+f3", agent: "en-us+m3", tts: "en-us+f2", person: "en-us+m1", menu: "en-us+f4" } as const;
/** Tones, made with sox's synth: the voicemail beep (1 kHz, half a second) and a few seconds of hold music. */
const TONES: Record<string, string[]> = {
  "tone.beep": ["synth", "0.5", "sine", "1000", "vol", "0.5"],
  "tone.hold-music": ["synth", "4", "sine", "330-550", "tremolo", "2", "60", "vol", "0.4"],
};
/** Only missing clips are made unless `--all`: espeak-ng versions differ, and existing clips are what the tests know. */
const ALL = process.argv.includes("--all");

mkdirSync(VOICE_CLIPS_DIR, { recursive: true });
const work = mkdtempSync(path.join(os.tmpdir(), "voice-clips-"));
try {
  const only = process.argv.slice(2);
  for (const clip of VOICE_CLIPS.filter((candidate) => only.length === 0 || only.includes(candidate.id))) {
    const out = path.join(VOICE_CLIPS_DIR, `${clip.id}.ulaw`);
    if (!ALL && existsSync(out)) continue;
    const toUlaw = ["-r", "8000", "-c", "1", "-e", "u-law", "-b", "8", "-t", "raw", out];
    if (clip.speaker === "tone") {
      execFileSync("sox", ["-n", ...toUlaw, ...TONES[clip.id]!]);
    } else {
      const wav = path.join(work, `${clip.id}.wav`);
      execFileSync("espeak-ng", ["-v", ("espeakVoice" in clip ? clip.espeakVoice : undefined) ?? VOICES[clip.speaker], "-s", "175", "-w", wav, clip.text]);
      // Trim the silence espeak leaves at both ends, normalize the level, resample to telephony µ-law.
      execFileSync("sox", [wav, ...toUlaw, "silence", "1", "0.02", "1%", "reverse", "silence", "1", "0.02", "1%", "reverse", "norm", "-3"]);
    }
    console.log(`${clip.id}: ${(statSync(out).size / 8000).toFixed(2)} s`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
