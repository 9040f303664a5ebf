"use client";

import { useEffect, useRef, useState } from "react";
import { Button } from "../../../_components/ui/button";

/** G.711 µ-law → linear, -1…1 (the listen socket sends the call's mixed audio as 8 kHz µ-law). */
const ULAW_TO_FLOAT = (() => {
  const table = new Float32Array(256);
  for (let i = 0; i < 256; i += 1) {
    const value = ~i & 0xff;
    const magnitude = ((((value & 0x0f) << 3) + 0x84) << ((value >> 4) & 0x07)) - 0x84;
    table[i] = ((value & 0x80 ? -magnitude : magnitude) / 32768) as number;
  }
  return table;
})();

/** Audio queued ahead of the playhead: enough to ride out network jitter, far under the 1 s the listener may lag. */
const LEAD_SECONDS = 0.15;

type State = { kind: "idle" } | { kind: "connecting" } | { kind: "listening" } | { kind: "ended" } | { kind: "refused" };

type Session = { ws: WebSocket; context: AudioContext; audio: HTMLAudioElement; frame: number };

/**
 * "Listen": the call's two sides, live, in this browser (supervisors and admins). The audio arrives over
 * `/ws/listen` and plays through an `<audio>` element fed by Web Audio; stopping closes the socket and changes nothing
 * on the call. The level meter shows that sound is coming through.
 */
export function ListenButton({ callId, contactName }: { callId: string; contactName: string }) {
  const [state, setState] = useState<State>({ kind: "idle" });
  const [level, setLevel] = useState(0);
  const session = useRef<Session | null>(null);
  const audioRef = useRef<HTMLAudioElement | null>(null);

  const stop = (next: State) => {
    const current = session.current;
    session.current = null;
    if (current) {
      cancelAnimationFrame(current.frame);
      current.ws.close();
      current.audio.pause();
      current.audio.srcObject = null;
      void current.context.close();
    }
    setLevel(0);
    setState(next);
  };

  useEffect(() => () => stop({ kind: "idle" }), []);

  const start = () => {
    const audio = audioRef.current;
    if (!audio) return;
    const context = new AudioContext();
    const destination = context.createMediaStreamDestination();
    const analyser = context.createAnalyser();
    analyser.fftSize = 1024;
    const gain = context.createGain();
    gain.connect(destination);
    gain.connect(analyser);
    audio.srcObject = destination.stream;
    void audio.play().catch(() => {});
    const protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${protocol}//${window.location.host}/ws/listen?callId=${encodeURIComponent(callId)}`);
    ws.binaryType = "arraybuffer";
    let playhead = 0;
    let ready = false;
    const samples = new Float32Array(analyser.fftSize);
    const meter = () => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const sample of samples) sum += sample * sample;
      setLevel(Math.sqrt(sum / samples.length));
      if (session.current) session.current.frame = requestAnimationFrame(meter);
    };
    session.current = { ws, context, audio, frame: requestAnimationFrame(meter) };
    setState({ kind: "connecting" });
    ws.onmessage = (event) => {
      if (typeof event.data === "string") {
        const message = JSON.parse(event.data) as { type?: string };
        if (message.type === "ready") {
          ready = true;
          setState({ kind: "listening" });
        } else if (message.type === "ended") stop({ kind: "ended" });
        return;
      }
      const bytes = new Uint8Array(event.data as ArrayBuffer);
      if (bytes.length === 0) return;
      const buffer = context.createBuffer(1, bytes.length, 8000);
      const channel = buffer.getChannelData(0);
      for (let i = 0; i < bytes.length; i += 1) channel[i] = ULAW_TO_FLOAT[bytes[i]!]!;
      const source = context.createBufferSource();
      source.buffer = buffer;
      source.connect(gain);
      // Late audio is not queued behind: the listener stays within LEAD_SECONDS of the call.
      playhead = Math.max(playhead, context.currentTime + LEAD_SECONDS);
      if (playhead > context.currentTime + 1) playhead = context.currentTime + LEAD_SECONDS;
      source.start(playhead);
      playhead += buffer.duration;
    };
    ws.onclose = () => {
      if (session.current?.ws === ws) stop(ready ? { kind: "ended" } : { kind: "refused" });
    };
  };

  const listening = state.kind === "listening" || state.kind === "connecting";
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="listen">
      {listening ? (
        <Button size="sm" variant="secondary" onClick={() => stop({ kind: "idle" })} aria-label={`Stop listening to the call with ${contactName}`}>
          Stop listening
        </Button>
      ) : (
        <Button size="sm" variant="secondary" onClick={start} aria-label={`Listen to the call with ${contactName}`}>
          Listen
        </Button>
      )}
      {/* The call's audio; its level is exposed for the meter (and tests) as data-level. */}
      <audio ref={audioRef} data-testid="listen-audio" data-level={level.toFixed(4)} aria-label="Live call audio" />
      {state.kind === "connecting" && <span className="text-sm text-muted-foreground">Connecting…</span>}
      {state.kind === "listening" && (
        <span className="flex items-center gap-1 text-sm text-muted-foreground" role="status">
          Live
          <span aria-hidden className="inline-block h-2 w-16 overflow-hidden rounded bg-muted">
            <span className="block h-full bg-primary" style={{ width: `${Math.min(100, Math.round(level * 400))}%` }} />
          </span>
        </span>
      )}
      {state.kind === "ended" && <span className="text-sm text-muted-foreground">The call has ended.</span>}
      {state.kind === "refused" && (
        <span className="text-sm text-muted-foreground" role="status">
          Listening is not available for this call.
        </span>
      )}
    </div>
  );
}
