"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type WaveSurfer from "wavesurfer.js";
import { sameOriginRecordingUrl } from "@/server/storage/recording-route";
import { Alert } from "../../../../_components/ui/alert";
import { Button } from "../../../../_components/ui/button";
import { formatDuration } from "../../../../_components/ui/format";
import { NativeSelect } from "../../../../_components/ui/input";

export type SignedRecording = { url?: string; expiresAt?: string; recordingStatus: string; durationSeconds?: number };

type Props = {
  /** The signed URL of GET /recordings/{callId}: the audio element plays through it (with Range requests). */
  url: string;
  expiresAt?: string;
  durationSeconds?: number;
  /** Fetches a freshly signed link (GET /recordings/{callId} again); null when the call has no audio any more. */
  refresh: () => Promise<SignedRecording | null>;
};

/** Links are refreshed before they would expire during playback start. */
const EXPIRY_MARGIN_MS = 15_000;

/**
 * The call's recording: an <audio> element on the signed URL, a waveform drawn by wavesurfer.js (loaded only when this
 * player mounts, so it stays out of every route's first-load JS), play/pause, ±5 s, a seek slider and speed. An expired
 * or refused link is replaced by a fresh one from the single-recording procedure, once per attempt, keeping the position.
 */
export function RecordingPlayer({ url, expiresAt, durationSeconds, refresh }: Props) {
  const audioRef = useRef<HTMLAudioElement>(null);
  const waveRef = useRef<HTMLDivElement>(null);
  const resumeRef = useRef<{ time: number; play: boolean } | null>(null);
  const refreshedForErrorRef = useRef(false);
  const [link, setLink] = useState({ url, expiresAt });
  const [playing, setPlaying] = useState(false);
  const [currentTime, setCurrentTime] = useState(0);
  const [duration, setDuration] = useState(durationSeconds ?? 0);
  const [rate, setRate] = useState(1);
  const [waveform, setWaveform] = useState<"loading" | "ready" | "unavailable">("loading");
  const [state, setState] = useState<"ready" | "refreshing" | "gone" | "error">("ready");
  const [notice, setNotice] = useState<string | null>(null);

  // The waveform, drawn over the same media element: wavesurfer fetches the audio once to decode the peaks and keeps
  // the element's source (the signed URL) as it is.
  useEffect(() => {
    const audio = audioRef.current;
    const container = waveRef.current;
    if (!audio || !container) return;
    let instance: WaveSurfer | null = null;
    let cancelled = false;
    setWaveform("loading");
    import("wavesurfer.js")
      .then(({ default: WaveSurferClass }) => {
        if (cancelled) return;
        instance = WaveSurferClass.create({
          container,
          media: audio,
          height: 64,
          waveColor: "#93c5fd",
          progressColor: "#1d4ed8",
          cursorColor: "#111827",
          barWidth: 2,
          barGap: 1,
          barRadius: 2,
          normalize: true,
          dragToSeek: true,
        });
        instance.on("ready", () => !cancelled && setWaveform("ready"));
        instance.on("error", () => !cancelled && setWaveform("unavailable"));
      })
      .catch(() => !cancelled && setWaveform("unavailable"));
    return () => {
      cancelled = true;
      instance?.destroy();
    };
  }, [link.url]);

  const renewLink = useCallback(
    async (resume: { time: number; play: boolean }) => {
      setState("refreshing");
      try {
        const fresh = await refresh();
        if (!fresh?.url) {
          setState("gone");
          return;
        }
        resumeRef.current = resume;
        // Signed within the same second, the link can come back identical: then reload the element's source.
        if (fresh.url === link.url) audioRef.current?.load();
        setLink({ url: fresh.url, expiresAt: fresh.expiresAt });
        setNotice("The recording link had expired, so a fresh one was fetched.");
        setState("ready");
      } catch {
        setState("error");
      }
    },
    [refresh, link.url],
  );

  const togglePlay = async () => {
    const audio = audioRef.current;
    if (!audio) return;
    if (!audio.paused) {
      audio.pause();
      return;
    }
    refreshedForErrorRef.current = false;
    if (link.expiresAt && Date.parse(link.expiresAt) - Date.now() < EXPIRY_MARGIN_MS) {
      await renewLink({ time: audio.currentTime, play: true });
      return;
    }
    if (state === "error") setState("ready");
    await audio.play().catch(() => {
      // A refused source is reported by the element's error event (handled below); autoplay refusals need a click.
    });
  };

  const onMediaError = () => {
    const audio = audioRef.current;
    if (!audio || state === "refreshing") return;
    if (refreshedForErrorRef.current) {
      setState("error");
      return;
    }
    // A signed link that expired (or was refused) is replaced once; a second failure is reported.
    refreshedForErrorRef.current = true;
    void renewLink({ time: audio.currentTime, play: resumeRef.current?.play ?? !audio.paused });
  };

  const onLoadedMetadata = () => {
    const audio = audioRef.current;
    if (!audio) return;
    if (Number.isFinite(audio.duration) && audio.duration > 0) setDuration(audio.duration);
    audio.playbackRate = rate;
    const resume = resumeRef.current;
    if (resume) {
      resumeRef.current = null;
      if (resume.time > 0) audio.currentTime = resume.time;
      if (resume.play) void audio.play().catch(() => {});
    }
  };

  const seekTo = (seconds: number) => {
    const audio = audioRef.current;
    if (!audio) return;
    const end = Number.isFinite(audio.duration) && audio.duration > 0 ? audio.duration : duration;
    audio.currentTime = Math.min(Math.max(0, seconds), end || 0);
    setCurrentTime(audio.currentTime);
  };

  return (
    <div className="flex flex-col gap-2.5">
      <audio
        ref={audioRef}
        src={sameOriginRecordingUrl(link.url)}
        preload="metadata"
        data-testid="call-audio"
        onPlay={() => setPlaying(true)}
        onPlaying={() => {
          refreshedForErrorRef.current = false;
          setState("ready");
        }}
        onPause={() => setPlaying(false)}
        onEnded={() => setPlaying(false)}
        onTimeUpdate={(e) => setCurrentTime(e.currentTarget.currentTime)}
        onLoadedMetadata={onLoadedMetadata}
        onDurationChange={(e) => Number.isFinite(e.currentTarget.duration) && e.currentTarget.duration > 0 && setDuration(e.currentTarget.duration)}
        onError={onMediaError}
      />
      <div ref={waveRef} className="min-h-18 cursor-pointer rounded-md border border-gray-200 bg-gray-50 p-1" aria-hidden="true" data-testid="waveform" data-state={waveform}>
        {waveform !== "ready" && (
          <div className="grid h-16 place-items-center text-sm text-muted-foreground">
            {waveform === "loading" ? "Loading waveform…" : "Waveform unavailable: the audio still plays."}
          </div>
        )}
      </div>
      <input
        className="w-full accent-primary"
        type="range"
        min={0}
        max={Math.max(duration, 0.1)}
        step={0.1}
        value={Math.min(currentTime, duration || currentTime)}
        onChange={(e) => seekTo(Number(e.target.value))}
        aria-label="Position in the recording"
        aria-valuetext={`${formatDuration(currentTime)} of ${formatDuration(duration)}`}
      />
      <div className="flex flex-wrap items-center gap-2">
        <Button variant="primary" onClick={() => void togglePlay()} disabled={state === "refreshing" || state === "gone"} data-testid="play-toggle">
          {playing ? "Pause" : "Play"}
        </Button>
        <Button size="sm" onClick={() => seekTo(currentTime - 5)} title="Back 5 seconds">
          −5 s<span className="sr-only"> (back 5 seconds)</span>
        </Button>
        <Button size="sm" onClick={() => seekTo(currentTime + 5)} title="Forward 5 seconds">
          +5 s<span className="sr-only"> (forward 5 seconds)</span>
        </Button>
        <span className="min-w-24 tabular-nums" aria-live="off" data-testid="play-time">
          {formatDuration(currentTime)} / {formatDuration(duration)}
        </span>
        <label className="text-sm text-muted-foreground" htmlFor="playback-rate">
          Speed
        </label>
        <NativeSelect
          id="playback-rate"
          value={rate}
          className="w-auto"
          onChange={(e) => {
            const next = Number(e.target.value);
            setRate(next);
            if (audioRef.current) audioRef.current.playbackRate = next;
          }}
        >
          {[0.75, 1, 1.25, 1.5, 2].map((value) => (
            <option key={value} value={value}>
              {value}×
            </option>
          ))}
        </NativeSelect>
      </div>
      <div aria-live="polite" className="flex flex-col gap-2">
        {state === "refreshing" && <p className="text-sm text-muted-foreground">Fetching a fresh recording link…</p>}
        {notice && state === "ready" && (
          <p className="text-sm text-muted-foreground" data-testid="link-refreshed">
            {notice}
          </p>
        )}
        {state === "gone" && <Alert tone="warning">This recording is no longer available (it may have been removed by the retention policy). The transcript stays.</Alert>}
        {state === "error" && (
          <Alert tone="error" className="flex flex-wrap items-center gap-2">
            <span>The recording could not be played, even with a fresh link.</span>
            <Button size="sm" onClick={() => void renewLink({ time: audioRef.current?.currentTime ?? 0, play: true })}>
              Try again
            </Button>
          </Alert>
        )}
      </div>
      {link.expiresAt && (
        <p className="text-sm text-muted-foreground">
          Played through a private link that expires at {new Date(link.expiresAt).toLocaleTimeString()}; a fresh one is fetched when it runs out.
        </p>
      )}
    </div>
  );
}
