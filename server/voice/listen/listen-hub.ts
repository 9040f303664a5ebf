import { randomBytes } from "node:crypto";
import type postgres from "postgres";

/** 20 ms of 8 kHz µ-law. */
export const LISTEN_FRAME_BYTES = 160;
/** Frames batched per NOTIFY towards another instance: 100 ms, ~1.1 kB of base64 (NOTIFY payloads stop at 8 kB). */
const REMOTE_BATCH_BYTES = 800;
/** A listener on another instance repeats its request this often; the source stops publishing after LISTEN_DEMAND_MS of silence. */
export const LISTEN_HEARTBEAT_MS = 3000;
const LISTEN_DEMAND_MS = 10_000;

export const LISTEN_REQUEST_CHANNEL = "call_listen";
export const LISTEN_AUDIO_CHANNEL = "call_audio";

export type ListenSource = {
  /** Whether anyone listens (here or on another instance): the bridge only decodes and mixes audio then. */
  wanted(): boolean;
  /** 20 ms of the call's mixed audio (both sides), µ-law. */
  push(frame: Buffer): void;
  close(): void;
};

export type ListenHubDeps = {
  /** The Postgres client for LISTEN/NOTIFY between instances; null: this instance only (tests, one instance). */
  sql: postgres.Sql | null;
  log: (message: string, error?: unknown) => void;
  now?: () => number;
};

/**
 * "Listen" (docs/call-engine.md "Listening in"): a supervisor's socket may land on any instance, and the call's media
 * stream is on one of them. Sources (the media bridge of the instance holding the stream) and subscribers (listen
 * sockets) meet here: on the same instance frames go straight across; otherwise the listener's instance asks on the
 * `call_listen` channel (again every LISTEN_HEARTBEAT_MS while it listens) and the source's instance publishes the
 * audio in 100 ms batches on `call_audio` (Postgres LISTEN/NOTIFY: nothing to run besides the database). Nobody
 * listening costs the bridge nothing but a map lookup per frame.
 */
export class ListenHub {
  private readonly sources = new Map<string, { batch: Buffer[]; batchBytes: number }>();
  private readonly subscribers = new Map<string, Set<(frame: Buffer) => void>>();
  private readonly remoteDemand = new Map<string, number>();
  private readonly heartbeats = new Map<string, NodeJS.Timeout>();
  private listening: Promise<void> | null = null;
  private readonly unlisten: Array<() => Promise<void>> = [];
  readonly instanceId = randomBytes(6).toString("hex");
  private readonly now: () => number;

  constructor(private readonly deps: ListenHubDeps) {
    this.now = deps.now ?? Date.now;
  }

  private ensureListening(): Promise<void> {
    if (!this.deps.sql) return Promise.resolve();
    this.listening ??= (async () => {
      const sql = this.deps.sql!;
      const requests = await sql.listen(LISTEN_REQUEST_CHANNEL, (payload) => this.onRequest(payload));
      const audio = await sql.listen(LISTEN_AUDIO_CHANNEL, (payload) => this.onRemoteAudio(payload));
      this.unlisten.push(() => requests.unlisten(), () => audio.unlisten());
    })().catch((error: unknown) => {
      this.listening = null;
      this.deps.log("listen: LISTEN failed", error);
    });
    return this.listening;
  }

  private onRequest(callId: string) {
    if (this.sources.has(callId)) this.remoteDemand.set(callId, this.now() + LISTEN_DEMAND_MS);
  }

  private onRemoteAudio(payload: string) {
    const space = payload.indexOf(" ");
    if (space <= 0) return;
    const callId = payload.slice(0, space);
    // This instance's own source reaches its subscribers directly.
    if (this.sources.has(callId)) return;
    const subscribers = this.subscribers.get(callId);
    if (!subscribers) return;
    const audio = Buffer.from(payload.slice(space + 1), "base64");
    for (const deliver of subscribers) deliver(audio);
  }

  /** The media bridge of a call whose stream is here. */
  registerSource(callId: string): ListenSource {
    const state = { batch: [] as Buffer[], batchBytes: 0 };
    this.sources.set(callId, state);
    void this.ensureListening();
    const remoteWanted = () => (this.remoteDemand.get(callId) ?? 0) > this.now();
    return {
      wanted: () => this.subscribers.has(callId) || remoteWanted(),
      push: (frame) => {
        for (const deliver of this.subscribers.get(callId) ?? []) deliver(frame);
        if (!this.deps.sql || !remoteWanted()) return;
        state.batch.push(frame);
        state.batchBytes += frame.length;
        if (state.batchBytes < REMOTE_BATCH_BYTES) return;
        const audio = Buffer.concat(state.batch).toString("base64");
        state.batch = [];
        state.batchBytes = 0;
        void this.deps.sql.notify(LISTEN_AUDIO_CHANNEL, `${callId} ${audio}`).catch((error: unknown) => this.deps.log("listen: NOTIFY failed", error));
      },
      close: () => {
        if (this.sources.get(callId) === state) this.sources.delete(callId);
        this.remoteDemand.delete(callId);
      },
    };
  }

  hasSource(callId: string): boolean {
    return this.sources.has(callId);
  }

  /** A listener: gets the call's frames (from here or from the instance holding the stream) until it unsubscribes. */
  subscribe(callId: string, deliver: (frame: Buffer) => void): () => void {
    let set = this.subscribers.get(callId);
    if (!set) {
      set = new Set();
      this.subscribers.set(callId, set);
    }
    set.add(deliver);
    if (this.deps.sql && !this.heartbeats.has(callId)) {
      const ask = () => {
        if (this.sources.has(callId)) return;
        void this.ensureListening()
          .then(() => this.deps.sql!.notify(LISTEN_REQUEST_CHANNEL, callId))
          .catch((error: unknown) => this.deps.log("listen: request failed", error));
      };
      ask();
      const timer = setInterval(ask, LISTEN_HEARTBEAT_MS);
      timer.unref?.();
      this.heartbeats.set(callId, timer);
    }
    return () => {
      const current = this.subscribers.get(callId);
      if (!current) return;
      current.delete(deliver);
      if (current.size > 0) return;
      this.subscribers.delete(callId);
      clearInterval(this.heartbeats.get(callId));
      this.heartbeats.delete(callId);
    };
  }

  async close(): Promise<void> {
    for (const timer of this.heartbeats.values()) clearInterval(timer);
    this.heartbeats.clear();
    await Promise.all(this.unlisten.splice(0).map((stop) => stop().catch(() => {})));
  }
}
