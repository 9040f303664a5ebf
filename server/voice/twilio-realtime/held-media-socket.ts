import type { WebSocket } from "ws";

type Listener = (event: { data: unknown }) => void;

/** Frames held while the model connects: 10 s of 20 ms frames. Older ones are dropped. */
const MAX_HELD_MESSAGES = 500;

/**
 * The Twilio media WebSocket as the Realtime transport sees it, except that `media` messages are held until
 * `release()` — the transport drops caller audio until its model connection is up, and callers say "Hello?" the
 * moment they pick up. Everything else (start, mark, stop, close, error, and every `send`) passes straight through.
 */
export class HeldMediaSocket {
  private held: unknown[] = [];
  private holding = true;
  private readonly listeners: Listener[] = [];
  /** See every message our side sends to Twilio: the call-quality recorder (first audio frames, `clear`), the listen tap. */
  private readonly sendObservers = new Set<(data: string) => void>();

  constructor(private readonly ws: WebSocket) {
    ws.on("message", (data: Buffer) => {
      if (this.holding && data.length < 4096 && data.includes('"event":"media"')) {
        this.held.push(data);
        if (this.held.length > MAX_HELD_MESSAGES) this.held.shift();
        return;
      }
      this.dispatch(data);
    });
  }

  private dispatch(data: unknown) {
    for (const listener of this.listeners) listener({ data });
  }

  /** Delivers the held audio in order, then passes media through as it comes. */
  release() {
    if (!this.holding) return;
    this.holding = false;
    const held = this.held;
    this.held = [];
    for (const data of held) this.dispatch(data);
  }

  addEventListener(type: string, listener: (event: never) => void) {
    if (type === "message") this.listeners.push(listener as Listener);
    else this.ws.on(type, (...args: unknown[]) => (listener as (...a: unknown[]) => void)(...args));
  }

  /** Adds an observer of every message sent to Twilio; returns its removal. */
  observeSends(observer: (data: string) => void): () => void {
    this.sendObservers.add(observer);
    return () => void this.sendObservers.delete(observer);
  }

  send(data: string) {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(data);
    for (const observer of this.sendObservers) observer(data);
  }

  close() {
    this.ws.close();
  }

  get readyState() {
    return this.ws.readyState;
  }
}
