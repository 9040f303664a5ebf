import { encodeUlawSample } from "@/server/voice/g711";
import { voiceTurn } from "@/server/voice/simulator/wav";
import { LISTEN_FRAME_BYTES, type ListenHub } from "./listen-hub";

const TURN_MS = 2600;
const PAUSE_MS = 600;
const PITCHES = [196, 124];

/**
 * The deterministic simulator has no media stream to tap (its conversations are events, DESIGN §7): a listener of a
 * simulated call hears a conversation synthesized where they listen — two voices taking turns, like the simulator's
 * recordings — in real time, for as long as the call is live. The real engine's audio comes from the media bridge.
 */
export function startSimulatedListenSource(hub: ListenHub, callId: string): () => void {
  const source = hub.registerSource(callId);
  const turnSamples = (TURN_MS * 8000) / 1000;
  const turns = PITCHES.map((pitch) => {
    const pcm = voiceTurn(pitch, turnSamples);
    const ulaw = Buffer.alloc(pcm.length + (PAUSE_MS * 8000) / 1000, 0xff);
    for (let i = 0; i < pcm.length; i += 1) ulaw[i] = encodeUlawSample((pcm[i]! - 128) * 256);
    return ulaw;
  });
  let turn = 0;
  let position = 0;
  const startedAt = Date.now();
  let framesSent = 0;
  const timer = setInterval(() => {
    // Paced by the clock, not the timer: a late tick sends the frames it owes.
    const due = Math.floor((Date.now() - startedAt) / 20) - framesSent;
    for (let i = 0; i < Math.min(due, 50); i += 1) {
      const audio = turns[turn % turns.length]!;
      const frame = audio.subarray(position, position + LISTEN_FRAME_BYTES);
      position += LISTEN_FRAME_BYTES;
      if (position >= audio.length) {
        position = 0;
        turn += 1;
      }
      framesSent += 1;
      source.push(Buffer.from(frame));
    }
    if (due > 50) framesSent += due - 50;
  }, 20);
  timer.unref?.();
  return () => {
    clearInterval(timer);
    source.close();
  };
}
