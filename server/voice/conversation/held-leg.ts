import type { CallerFrame, MediaLeg, MediaLegEvents } from "./media-leg";

/** What our side sent on a leg, for observers (call quality, listen-in, test-call recording). */
export type LegSend = { kind: "audio"; audio: Uint8Array } | { kind: "clear" } | { kind: "mark"; name: string };

/**
 * The leg as a conversation uses it: the callee's frames are held until `release()` (the model connection is up —
 * callers say "Hello?" the moment they pick up; the oldest are dropped past 10 s), everything else passes straight
 * through, and observers see every send.
 */
export class HeldLeg implements MediaLeg {
  private held: CallerFrame[] = [];
  private holding = true;
  private readonly audioListeners = new Set<(frame: CallerFrame) => void>();
  private readonly sendObservers = new Set<(sent: LegSend) => void>();

  constructor(
    private readonly leg: MediaLeg,
    private readonly maxHeld = 500,
  ) {
    leg.on("audio", (frame) => {
      if (this.holding) {
        this.held.push(frame);
        if (this.held.length > this.maxHeld) this.held.shift();
        return;
      }
      for (const listener of this.audioListeners) listener(frame);
    });
  }

  get started() {
    return this.leg.started;
  }

  get open() {
    return this.leg.open;
  }

  /** Delivers the held frames in order, then frames as they come. */
  release() {
    if (!this.holding) return;
    this.holding = false;
    const held = this.held;
    this.held = [];
    for (const frame of held) for (const listener of this.audioListeners) listener(frame);
  }

  on<E extends keyof MediaLegEvents>(event: E, listener: MediaLegEvents[E]): () => void {
    if (event !== "audio") return this.leg.on(event, listener);
    const audio = listener as MediaLegEvents["audio"];
    this.audioListeners.add(audio);
    return () => void this.audioListeners.delete(audio);
  }

  /** Adds an observer of every send; returns its removal. */
  observeSends(observer: (sent: LegSend) => void): () => void {
    this.sendObservers.add(observer);
    return () => void this.sendObservers.delete(observer);
  }

  private observed(sent: LegSend) {
    for (const observer of this.sendObservers) observer(sent);
  }

  sendAudio(audio: Uint8Array) {
    if (!this.leg.open) return;
    this.leg.sendAudio(audio);
    this.observed({ kind: "audio", audio });
  }

  mark(name: string) {
    if (!this.leg.open) return;
    this.leg.mark(name);
    this.observed({ kind: "mark", name });
  }

  clear() {
    if (!this.leg.open) return;
    this.leg.clear();
    this.observed({ kind: "clear" });
  }

  close(options?: { abrupt?: boolean; reason?: string }) {
    this.leg.close(options);
  }
}
