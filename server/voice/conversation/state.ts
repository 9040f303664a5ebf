import type { RealtimeItem, RealtimeSession } from "@openai/agents-realtime";
import type { PlaceCallRequest } from "@/server/voice/types";
import type { ConversationHooks, TranscriptLineInput } from "./hooks";
import type { StreamPrivacy } from "./stream-privacy";

const PLAYBACK_DRAIN_TIMEOUT_MS = 15_000;
/** Keys the contact presses within this time reach the model as one message. */
const CONTACT_KEYS_GATHER_MS = 1200;

/** Where one call's conversation stands: set by the conversation, its tools and the model's events. */
export class ConversationState {
  /** The call is loaded (null after a crash: nothing more is written). */
  request: PlaceCallRequest | null = null;
  session: RealtimeSession | null = null;
  /** We are ending or handing over the call (end_call, a transfer, keys, a machine): a lost model is no failure then. */
  closingByUs = false;
  /** The call failed (model unreachable or lost, disclosures unavailable): hung up with an apology once. */
  failed = false;
  /** The model is connected and the caller's audio reaches it (quality is measured from here). */
  conversationRan = false;
  /** The greeting and disclosures are over: turn detection answers the callee. */
  conversing = false;
  /** A committed user turn no response has started on yet (the verdict's `response.create` answers it). */
  userTurnWaiting = false;
  /** The model's VAD hears the callee talking now. */
  calleeSpeaking = false;
  /** Aborted when the callee starts talking over disclosures said at once on answer. */
  calleeTalkedOver: AbortController | null = null;
  /** The answering-machine verdict, asked once the model is connected. */
  amdVerdict: Promise<string> | null = null;
  /** Added to the media clock's offsets: a resumed stream's clock starts again at 0, the call's goes on. */
  clockOffsetMs = 0;
  /** The process "crashed" (tests): the stream's end is not recorded. */
  crashed = false;
}

/** The agent's audio sent to the leg and the marks back: playback is over when every chunk has been heard. */
export class PlaybackCounter {
  sent = 0;
  back = 0;

  /** Resolves once all audio sent has been played, the leg closed, or 15 s passed. */
  async drained(open: () => boolean) {
    const deadline = Date.now() + PLAYBACK_DRAIN_TIMEOUT_MS;
    while (this.back < this.sent && Date.now() < deadline && open()) await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Keys the contact pressed (the leg's `dtmf`), gathered for a moment, then given to the model as one message. */
export class ContactKeys {
  private keys = "";
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deliver: (keys: string) => void) {}

  pressed(digit: string) {
    this.keys = (this.keys + digit).slice(-32);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const keys = this.keys;
      this.keys = "";
      this.deliver(keys);
    }, CONTACT_KEYS_GATHER_MS);
  }

  stop() {
    if (this.timer) clearTimeout(this.timer);
  }
}

/** The call's transcript as it is stored: each complete turn once, in order, on the call's clock. */
export class TranscriptWriter {
  /** Item IDs stored already (or re-created from a resumed stream's lines). */
  readonly saved = new Set<string>();
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly params: { callId: string; hooks: ConversationHooks; media: StreamPrivacy; state: ConversationState; log: (message: string, error?: unknown) => void },
  ) {}

  /** Stores a line (after the ones before it). */
  write(request: PlaceCallRequest, line: TranscriptLineInput) {
    const { hooks, log, callId } = this.params;
    this.writes = this.writes.then(() => hooks.saveLine(request, line)).catch((error: unknown) => log(`transcript line of ${callId} not stored`, error));
  }

  /** Stores the session's completed turns not stored yet. */
  persist(history: RealtimeItem[]) {
    const { media, state } = this.params;
    const current = state.request;
    if (!current) return;
    for (const item of history) {
      if (item.type !== "message" || this.saved.has(item.itemId)) continue;
      if (item.role !== "user" && item.role !== "assistant") continue;
      const part = item.content[0] as { transcript?: string | null; text?: string } | undefined;
      const text = part?.transcript ?? part?.text ?? null;
      const complete = item.role === "user" ? typeof text === "string" : item.status !== "in_progress" && typeof text === "string";
      if (!complete || !text?.trim()) continue;
      this.saved.add(item.itemId);
      // Offsets on the stream's media clock (the carrier's timestamps): where the turn is in the recording, once aligned.
      const timing = media.turnTiming(item.itemId, item.role);
      const offset = state.clockOffsetMs;
      this.write(current, { itemId: item.itemId, speaker: item.role === "user" ? "customer" : "agent", text: text.trim(), offsetMs: timing.startMs + offset, endOffsetMs: timing.endMs === null ? null : timing.endMs + offset });
    }
  }

  /** Resolves once every line given so far is written (or failed). */
  flushed(): Promise<void> {
    return this.writes;
  }
}
