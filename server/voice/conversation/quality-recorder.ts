import type { AnsweredByClass, BridgeQuality, GreetingMode, QualityEvent, QualityTurn } from "@/db/schema";
import { ulawRms } from "@/server/voice/g711";

/** Our own voice activity detection on the contact's frames (used when the model sends no speech events). */
const SPEECH_RMS = 600;
const SPEECH_START_FRAMES = 2;
const SPEECH_STOP_FRAMES = 30;
const MAX_EVENTS = 400;

type Span = { start: number; end: number };

/**
 * One call's quality, measured at our media bridge from the frames it relays and the model events it sees
 * (docs/call-quality.md defines each figure). Fed by conversation.ts: every caller frame the media leg delivers,
 * every frame and `clear` our side sends it, and every Realtime server event; cheap per frame (a 160-byte RMS and a few
 * comparisons). Times are monotonic milliseconds since the stream start.
 */
export class CallQualityRecorder {
  private readonly now: () => number;
  private readonly startedAt: number;
  private greetingMs: number | null = null;
  private readonly turns: QualityTurn[] = [];
  private interruptions = 0;
  private modelClass: AnsweredByClass | null = null;
  private readonly events: QualityEvent[] = [];

  /** Where the contact's last utterance ended, not yet answered. */
  private pendingSpeechEnd: { at: number; source: "model" | "energy" } | null = null;
  private sawModelVad = false;
  private calleeSpeechStart: number | null = null;
  private readonly calleeSpans: Span[] = [];
  private energy = { voicedRun: 0, silentRun: 0, inSpeech: false, start: 0 };

  /** Our own `response.create` after holding the answer (AMD), and tools we ran while the contact waited. */
  private responseRequestedAt: number | null = null;
  private readonly toolSpans: Span[] = [];
  private readonly responsesWithAudio = new Set<string>();
  private awaitingFirstFrame: { deltaAt: number } | null = null;

  /** The agent's playback at Twilio, estimated from the audio sent (real time from the first frame). */
  private agentSpan: Span | null = null;
  private readonly agentSpans: Span[] = [];
  private ourClear = false;

  /** The agent's setting, known once the call is loaded. */
  greetingMode: GreetingMode;

  constructor(private readonly options: { greetingMode: GreetingMode; deadAirMs: number; now?: () => number }) {
    this.greetingMode = options.greetingMode;
    this.now = options.now ?? (() => performance.now());
    this.startedAt = this.now();
  }

  private at(): number {
    return this.now() - this.startedAt;
  }

  private event(event: QualityEvent) {
    if (this.events.length < MAX_EVENTS) this.events.push({ ...event, atMs: Math.round(event.atMs), ...(event.durationMs !== undefined ? { durationMs: Math.round(event.durationMs) } : {}) });
  }

  /** A frame of the contact's audio (8 kHz µ-law) as the media leg delivered it. */
  inboundAudio(frame: Uint8Array) {
    if (this.sawModelVad) return;
    const voiced = ulawRms(frame) > SPEECH_RMS;
    const state = this.energy;
    if (voiced) {
      state.voicedRun += 1;
      state.silentRun = 0;
      if (!state.inSpeech && state.voicedRun >= SPEECH_START_FRAMES) {
        state.inSpeech = true;
        state.start = this.at() - 40;
        this.calleeSpeechStarted(state.start);
      }
    } else {
      state.voicedRun = 0;
      state.silentRun += 1;
      if (state.inSpeech && state.silentRun >= SPEECH_STOP_FRAMES) {
        state.inSpeech = false;
        this.calleeSpeechStopped(this.at(), "energy");
      }
    }
  }

  private calleeSpeechStarted(at: number) {
    this.calleeSpeechStart = at;
    // The contact speaks again: the turn to answer ends when this utterance does.
    this.pendingSpeechEnd = null;
  }

  private calleeSpeechStopped(at: number, source: "model" | "energy") {
    const start = this.calleeSpeechStart ?? at;
    this.calleeSpans.push({ start, end: at });
    this.event({ atMs: start, kind: "callee-speech", durationMs: at - start });
    this.calleeSpeechStart = null;
    this.pendingSpeechEnd = { at, source };
  }

  /** A Realtime server event as the transport received it (before the SDK acts on it). */
  modelEvent(event: { type?: string; response_id?: string; delta?: string }) {
    switch (event.type) {
      case "input_audio_buffer.speech_started":
        this.sawModelVad = true;
        this.calleeSpeechStarted(this.at());
        return;
      case "input_audio_buffer.speech_stopped":
        this.sawModelVad = true;
        this.calleeSpeechStopped(this.at(), "model");
        return;
      case "response.output_audio.delta": {
        const now = this.at();
        if (event.response_id && !this.responsesWithAudio.has(event.response_id)) {
          this.responsesWithAudio.add(event.response_id);
          this.awaitingFirstFrame = { deltaAt: now };
        }
        // µ-law: 8 bytes per ms; base64: 4 characters per 3 bytes.
        const audioMs = ((event.delta?.length ?? 0) * 3) / 4 / 8;
        if (!this.agentSpan || this.agentSpan.end < now) {
          if (this.agentSpan) this.agentSpans.push(this.agentSpan);
          this.agentSpan = { start: now, end: now };
        }
        this.agentSpan.end += audioMs;
        return;
      }
      default:
        return;
    }
  }

  /** Our side wrote a frame of the agent's audio to the media leg. */
  agentAudioSent() {
    if (this.awaitingFirstFrame) this.firstFrameSent(this.awaitingFirstFrame.deltaAt);
  }

  /** Our side told the media leg to stop playing (`clear`). */
  playbackCleared() {
    this.cleared();
  }

  private firstFrameSent(deltaAt: number) {
    this.awaitingFirstFrame = null;
    const frameAt = this.at();
    const bridgeMs = frameAt - deltaAt;
    if (this.greetingMs === null) this.greetingMs = frameAt;
    const speechEnd = this.pendingSpeechEnd;
    if (speechEnd) {
      const responseMs = frameAt - speechEnd.at;
      const amdHold = this.responseRequestedAt !== null && this.responseRequestedAt > speechEnd.at ? this.responseRequestedAt - speechEnd.at : 0;
      const toolTime = this.toolSpans.reduce((sum, span) => sum + Math.max(0, Math.min(span.end, frameAt) - Math.max(span.start, speechEnd.at)), 0);
      const heldMs = Math.min(Math.max(0, responseMs - bridgeMs), amdHold + toolTime);
      const turn: QualityTurn = { atMs: Math.round(speechEnd.at), responseMs: Math.round(responseMs), modelMs: Math.round(responseMs - bridgeMs - heldMs), bridgeMs: round1(bridgeMs), heldMs: Math.round(heldMs), speechEnd: speechEnd.source };
      this.turns.push(turn);
      this.event({ atMs: speechEnd.at, kind: "turn", durationMs: responseMs, label: `${turn.responseMs} ms` });
    }
    this.pendingSpeechEnd = null;
    this.responseRequestedAt = null;
  }

  private cleared() {
    const now = this.at();
    const playing = this.agentSpan !== null && this.agentSpan.end > now;
    if (playing) this.agentSpan!.end = now;
    if (this.ourClear || !playing) return;
    this.interruptions += 1;
    this.event({ atMs: now, kind: "interruption" });
  }

  /** Runs `clear` work of ours (cutting the agent off for a machine): not the contact's interruption. */
  ourInterruption(run: () => void) {
    this.ourClear = true;
    try {
      run();
    } finally {
      this.ourClear = false;
    }
  }

  /** Audio we play ourselves (the disclosures, word for word): the callee hears the agent's side from now on. */
  ourAudioPlayed(durationMs: number) {
    const now = this.at();
    if (this.greetingMs === null) this.greetingMs = now;
    if (this.agentSpan) this.agentSpans.push(this.agentSpan);
    this.agentSpan = { start: now, end: now + durationMs };
  }

  /** We let the model answer a turn it had to hold (the answering-machine verdict came). */
  responseRequested() {
    this.responseRequestedAt = this.at();
  }

  /** A tool runs while the contact waits; call the returned function when it is done. */
  toolStarted(): () => void {
    const start = this.at();
    return () => {
      this.toolSpans.push({ start, end: this.at() });
    };
  }

  amdVerdict(result: string) {
    this.event({ atMs: this.at(), kind: "amd", label: result });
  }

  classified(answeredBy: AnsweredByClass) {
    this.modelClass = answeredBy;
    this.event({ atMs: this.at(), kind: "classified", label: answeredBy });
  }

  get greetingDelayMs(): number | null {
    return this.greetingMs;
  }

  get turnsSoFar(): readonly QualityTurn[] {
    return this.turns;
  }

  /** The measurements at the end of the stream. */
  finish(): BridgeQuality {
    const end = this.at();
    if (this.calleeSpeechStart !== null) this.calleeSpans.push({ start: this.calleeSpeechStart, end });
    const agentSpans = [...this.agentSpans, ...(this.agentSpan ? [this.agentSpan] : [])].map((span) => ({ start: span.start, end: Math.min(span.end, end) }));
    for (const span of agentSpans) this.event({ atMs: span.start, kind: "agent-speech", durationMs: span.end - span.start });
    const deadAir = silentGaps([...this.calleeSpans, ...agentSpans], end).filter((gap) => gap.end - gap.start > this.options.deadAirMs);
    for (const gap of deadAir) this.event({ atMs: gap.start, kind: "dead-air", durationMs: gap.end - gap.start });
    return {
      greetingMode: this.greetingMode,
      greetingMs: this.greetingMs === null ? null : Math.round(this.greetingMs),
      turns: this.turns,
      interruptions: this.interruptions,
      deadAirSeconds: Math.round(deadAir.reduce((sum, gap) => sum + (gap.end - gap.start), 0) / 100) / 10,
      modelClass: this.modelClass,
      durationMs: Math.round(end),
      events: [...this.events].sort((a, b) => a.atMs - b.atMs),
    };
  }
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/** The stretches of [0, end] that no span covers. */
export function silentGaps(spans: Span[], end: number): Span[] {
  const sorted = spans.filter((span) => span.end > span.start).sort((a, b) => a.start - b.start);
  const gaps: Span[] = [];
  let cursor = 0;
  for (const span of sorted) {
    if (span.start > cursor) gaps.push({ start: cursor, end: Math.min(span.start, end) });
    cursor = Math.max(cursor, span.end);
  }
  if (cursor < end) gaps.push({ start: cursor, end });
  return gaps.filter((gap) => gap.end > gap.start);
}
