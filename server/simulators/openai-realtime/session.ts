import { randomBytes } from "node:crypto";
import type WebSocket from "ws";
import { ulawRms } from "@/server/voice/g711";
import { AGENT_REPLIES, AGENT_SILENCE_REPLY, agentReplyAfterTool, agentReplyToNote, CALLEE_SILENCE_TIMEOUT_MS, openingLineOf, type AgentAction } from "../voice-script";
import { clipText, loadClip, VOICE_CLIPS, type VoiceClipId } from "../voice-clips/clips";

const id = (prefix: string) => `${prefix}_${randomBytes(10).toString("hex")}`;

/** Voice activity: a 20 ms frame louder than this (16-bit RMS) is speech. */
const SPEECH_RMS = 600;
const SPEECH_START_FRAMES = 2;
/** Server VAD's silence before it ends a turn (media time). */
const SPEECH_STOP_FRAMES = 30;
const FRAME = 160;
/** Bytes of agent audio per `response.output_audio.delta` (100 ms). */
const DELTA_BYTES = 800;

type Item = Record<string, unknown> & { id: string; type: string };

/** The client events the simulator reads (the SDK sends these). */
type ClientEvent = {
  type?: string;
  event_id?: string;
  session?: { type?: string; instructions?: unknown; audio?: { output?: { voice?: unknown } }; tools?: Array<{ name?: string }> } & Record<string, unknown>;
  audio?: unknown;
  item_id?: string;
  item?: Record<string, unknown> & { id?: string; type?: string; output?: unknown };
  content_index?: number;
  audio_end_ms?: number;
};

export type RealtimeSessionRecord = {
  id: string;
  model: string | null;
  /** The last `session.update` merged: instructions, audio formats, voice, tools. */
  config: Record<string, unknown>;
  instructions: string;
  voice: string | null;
  toolNames: string[];
  /** What the simulator heard (clip IDs, or `unrecognized`) and what it did, in order. */
  heard: string[];
  toolCalls: Array<{ name: string; arguments: string; output: string | null }>;
  /** Text the client added as system or user messages (history, notes), in order. */
  notes: string[];
  clientEvents: string[];
  closed: boolean;
};

/**
 * One Realtime conversation as the SDK sees it over the WebSocket: session.update/updated, server VAD over the
 * appended G.711 audio (speech started/stopped, committed, the user item added/done, its transcription completed and
 * retrievable), scripted responses (output items, audio and transcript deltas, function calls with their arguments,
 * response.done), tool outputs and follow-up `response.create`, cancellation and truncation. "Transcription" is a
 * closed-vocabulary recognizer: the callee's audio is one of the known clips, found byte for byte in what arrived.
 */
export class RealtimeSimSession {
  readonly record: RealtimeSessionRecord;
  private items: Item[] = [];
  private voicedRun = 0;
  private silentRun = 0;
  private inSpeech = false;
  private utterance: Buffer[] = [];
  private speechItemId: string | null = null;
  private inputMs = 0;
  private pendingFrame = Buffer.alloc(0);
  private activeResponse: { id: string; cancelled: boolean } | null = null;
  /** The scripted answer to the last user turn, while turn detection does not create responses. */
  private unanswered: AgentAction[] | null = null;
  private lastToolCall: { name: string; callId: string } | null = null;
  private pendingNote: string | null = null;
  /** Media time (input ms) at which the callee's silence makes the agent speak; null when not waiting. */
  private silenceDeadlineMs: number | null = null;
  private queue: Promise<void> = Promise.resolve();
  /** Test-call script: the caller turns heard so far, and a typed turn waiting for its `response.create`. */
  private callerTurns = 0;
  private pendingText: string | null = null;
  /** Whether the agent has said anything yet (on a phone call, a first `response.create` with nothing to answer is its greeting). */
  private spoke = false;

  constructor(
    private readonly ws: WebSocket,
    model: string | null,
    private readonly script: RealtimeScript = "phone",
    /** The model's think time before each response starts (wall ms, read per response): what latency tests inject. */
    private readonly responseDelayMs: () => number = () => 0,
  ) {
    this.record = { id: id("sess"), model, config: {}, instructions: "", voice: null, toolNames: [], heard: [], toolCalls: [], notes: [], clientEvents: [], closed: false };
    this.send({ type: "session.created", session: { id: this.record.id, object: "realtime.session", type: "realtime", model, output_modalities: ["audio"] } });
    ws.on("message", (data) => this.onClientEvent(data.toString()));
    ws.on("close", () => {
      this.record.closed = true;
    });
  }

  private send(event: Record<string, unknown>) {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify({ event_id: id("event"), ...event }));
  }

  private error(message: string, clientEventId?: string) {
    this.send({ type: "error", error: { type: "invalid_request_error", code: "invalid_value", message, event_id: clientEventId ?? null } });
  }

  private onClientEvent(raw: string) {
    let event: ClientEvent;
    try {
      event = JSON.parse(raw);
    } catch {
      this.error("The event is not valid JSON.");
      return;
    }
    this.record.clientEvents.push(String(event.type));
    if (this.record.clientEvents.length > 2000) this.record.clientEvents.splice(0, 1000);
    switch (event.type) {
      case "session.update": {
        const session = event.session ?? {};
        if (session.type !== "realtime") return this.error("Missing required parameter: 'session.type'.", event.event_id);
        // Only the fields present are updated (Realtime API reference, `session.update`): a deep merge.
        this.record.config = mergeConfig(this.record.config, session);
        if (typeof session.instructions === "string") this.record.instructions = session.instructions;
        const voice = session.audio?.output?.voice;
        if (typeof voice === "string") this.record.voice = voice;
        if (Array.isArray(session.tools)) this.record.toolNames = session.tools.map((tool: { name?: string }) => String(tool.name));
        this.send({ type: "session.updated", session: { id: this.record.id, object: "realtime.session", ...this.record.config } });
        return;
      }
      case "input_audio_buffer.append":
        if (typeof event.audio === "string") this.onAudio(Buffer.from(event.audio, "base64"));
        return;
      case "input_audio_buffer.commit":
      case "input_audio_buffer.clear":
        return;
      case "conversation.item.retrieve": {
        const item = this.items.find((candidate) => candidate.id === event.item_id);
        if (!item) return this.error(`Item ${event.item_id} does not exist.`, event.event_id);
        this.send({ type: "conversation.item.retrieved", item });
        return;
      }
      case "conversation.item.create": {
        const item: Item = { ...event.item, id: event.item?.id ?? id("item"), type: String(event.item?.type ?? "message"), status: "completed" };
        const previous = this.items.at(-1)?.id ?? null;
        this.items.push(item);
        this.send({ type: "conversation.item.added", previous_item_id: previous, item });
        this.send({ type: "conversation.item.done", previous_item_id: previous, item });
        // A note the client added to the conversation (a transfer that was not answered, a key the caller pressed):
        // the next `response.create` answers it.
        const content = Array.isArray(item.content) ? (item.content as Array<{ type?: string; text?: string }>) : [];
        if (item.type === "message" && (item.role === "system" || item.role === "user")) {
          const text = content.map((part) => (part.type === "input_text" ? (part.text ?? "") : "")).join(" ").trim();
          if (text) {
            this.record.notes.push(text);
            this.pendingNote = text;
          }
        }
        if (item.type === "message" && item.role === "user") this.pendingText = textOfUserItem(item);
        if (item.type === "function_call_output") {
          const call = this.record.toolCalls.findLast((candidate) => candidate.output === null);
          if (call) call.output = String(item.output ?? "");
        }
        return;
      }
      case "conversation.item.truncate":
        this.send({ type: "conversation.item.truncated", item_id: event.item_id, content_index: event.content_index ?? 0, audio_end_ms: event.audio_end_ms ?? 0 });
        return;
      case "conversation.item.delete":
        this.items = this.items.filter((item) => item.id !== event.item_id);
        this.send({ type: "conversation.item.deleted", item_id: event.item_id });
        return;
      case "response.create":
        this.enqueue(() => this.respondToRequest());
        return;
      case "response.cancel":
        if (this.activeResponse) this.activeResponse.cancelled = true;
        return;
      default:
        return this.error(`Unknown event type '${String(event.type)}'.`, event.event_id);
    }
  }

  private enqueue(work: () => Promise<void>) {
    this.queue = this.queue.then(work).catch(() => {});
  }

  /**
   * A `response.create` from the client: after a tool result, the script's follow-up; after a user turn that turn
   * detection did not answer (`create_response: false`), the answer to it; before anyone spoke, the instructions'
   * opening line if they give one (`openingLineOf`); otherwise nothing new.
   */
  private async respondToRequest() {
    const tool = this.lastToolCall;
    this.lastToolCall = null;
    const typed = this.pendingText;
    this.pendingText = null;
    if (!tool && typed !== null && this.script === "test-call") {
      this.callerTurns += 1;
      this.record.heard.push("text");
      return this.respond(testCallReply(typed, this.callerTurns));
    }
    const unanswered = this.unanswered;
    this.unanswered = null;
    const note = this.pendingNote;
    this.pendingNote = null;
    // Asked to speak first (`greetingMode: on-answer`, a call to us), the model opens: with the line its instructions
    // give (`Open with: "…"`), else its introduction.
    const opening = this.spoke || this.script !== "phone" ? [] : openingLineOf(this.record.instructions);
    const greeting: AgentAction[] = this.spoke || this.script !== "phone" ? [] : opening.length > 0 ? opening : [{ say: "agent.intro" }];
    if (!tool) return this.respond(unanswered ?? (note ? agentReplyToNote(note) : greeting));
    const output = this.record.toolCalls.findLast((call) => call.name === tool.name)?.output ?? "";
    const ok = /"ok"\s*:\s*true/.test(output);
    await this.respond(agentReplyAfterTool(tool.name, ok, output));
  }

  private onAudio(chunk: Buffer) {
    let data = this.pendingFrame.length ? Buffer.concat([this.pendingFrame, chunk]) : chunk;
    while (data.length >= FRAME) {
      this.onFrame(data.subarray(0, FRAME));
      data = data.subarray(FRAME);
    }
    this.pendingFrame = Buffer.from(data);
  }

  private onFrame(frame: Buffer) {
    this.inputMs += 20;
    const voiced = ulawRms(frame) > SPEECH_RMS;
    if (this.inSpeech) this.utterance.push(frame);
    if (voiced) {
      this.voicedRun += 1;
      this.silentRun = 0;
      if (!this.inSpeech && this.voicedRun >= SPEECH_START_FRAMES) {
        this.inSpeech = true;
        this.silenceDeadlineMs = null;
        this.speechItemId = id("item");
        this.utterance = [frame];
        this.send({ type: "input_audio_buffer.speech_started", item_id: this.speechItemId, audio_start_ms: this.inputMs - 40 });
      }
    } else {
      this.voicedRun = 0;
      this.silentRun += 1;
      if (this.inSpeech && this.silentRun >= SPEECH_STOP_FRAMES) {
        this.inSpeech = false;
        const itemId = this.speechItemId!;
        const audio = Buffer.concat(this.utterance);
        this.utterance = [];
        this.send({ type: "input_audio_buffer.speech_stopped", item_id: itemId, audio_end_ms: this.inputMs });
        this.enqueue(() => this.onUserTurn(itemId, audio));
      }
    }
    if (this.silenceDeadlineMs !== null && !this.inSpeech && this.inputMs >= this.silenceDeadlineMs) {
      this.silenceDeadlineMs = null;
      this.record.heard.push("silence");
      this.enqueue(() => this.respond(AGENT_SILENCE_REPLY));
    }
  }

  private async onUserTurn(itemId: string, audio: Buffer) {
    const previous = this.items.at(-1)?.id ?? null;
    this.send({ type: "input_audio_buffer.committed", item_id: itemId, previous_item_id: previous });
    const item: Item = { id: itemId, type: "message", role: "user", status: "completed", content: [{ type: "input_audio", transcript: null }] };
    this.items.push(item);
    this.send({ type: "conversation.item.added", previous_item_id: previous, item });
    this.send({ type: "conversation.item.done", previous_item_id: previous, item });
    const clip = recognize(audio);
    this.record.heard.push(clip ?? "unrecognized");
    this.callerTurns += 1;
    const seconds = audio.length / 8000;
    const transcript = clip ? clipText(clip) : this.script === "test-call" ? `[speech, ${seconds.toFixed(1)} s: not transcribed by the simulator]` : "";
    item.content = [{ type: "input_audio", transcript }];
    this.send({ type: "conversation.item.input_audio_transcription.completed", item_id: itemId, content_index: 0, transcript, usage: { type: "duration", seconds: Math.ceil(seconds) } });
    const reply = clip ? AGENT_REPLIES[clip] : this.script === "test-call" ? testCallReply(null, this.callerTurns) : undefined;
    if (!reply || reply.length === 0) return;
    // `turn_detection.create_response: false`: the turn is committed, the client decides when to respond.
    if (!this.createsResponses()) {
      this.unanswered = reply;
      return;
    }
    await this.respond(reply);
  }

  private createsResponses(): boolean {
    const turnDetection = (this.record.config as { audio?: { input?: { turn_detection?: { create_response?: boolean } | null } } }).audio?.input?.turn_detection;
    return turnDetection?.create_response !== false;
  }

  private async respond(actions: AgentAction[]) {
    const delay = this.responseDelayMs();
    if (delay > 0 && actions.length > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    const response = { id: id("resp"), cancelled: false };
    this.activeResponse = response;
    this.send({ type: "response.created", response: { id: response.id, object: "realtime.response", status: "in_progress", output: [] } });
    const output: Item[] = [];
    let spokenMs = 0;
    for (const [outputIndex, action] of actions.entries()) {
      if (response.cancelled) break;
      const previous = this.items.at(-1)?.id ?? null;
      if ("say" in action || "sayText" in action) {
        this.spoke = true;
        const item: Item = { id: id("item"), type: "message", role: "assistant", status: "in_progress", content: [] };
        this.items.push(item);
        output.push(item);
        const base = { response_id: response.id, item_id: item.id, output_index: outputIndex, content_index: 0 };
        this.send({ type: "response.output_item.added", response_id: response.id, output_index: outputIndex, item });
        this.send({ type: "conversation.item.added", previous_item_id: previous, item });
        this.send({ type: "response.content_part.added", ...base, part: { type: "audio", transcript: "" } });
        const audio = "say" in action ? loadClip(action.say) : speechOfLength(action.sayText);
        const text = "say" in action ? (action.text ?? clipText(action.say)) : action.sayText;
        const words = text.split(" ");
        let sent = 0;
        for (let offset = 0; offset < audio.length && !response.cancelled; offset += DELTA_BYTES) {
          this.send({ type: "response.output_audio.delta", ...base, delta: audio.subarray(offset, offset + DELTA_BYTES).toString("base64") });
          const upTo = Math.ceil(((offset + DELTA_BYTES) / audio.length) * words.length);
          if (upTo > sent) {
            this.send({ type: "response.output_audio_transcript.delta", ...base, delta: (sent > 0 ? " " : "") + words.slice(sent, upTo).join(" ") });
            sent = upTo;
          }
          await new Promise((resolve) => setImmediate(resolve));
        }
        const status = response.cancelled ? "incomplete" : "completed";
        Object.assign(item, { status, content: [{ type: "output_audio", transcript: text }] });
        spokenMs += audio.length / 8;
        this.send({ type: "response.output_audio.done", ...base });
        this.send({ type: "response.output_audio_transcript.done", ...base, transcript: text });
        this.send({ type: "response.content_part.done", ...base, part: { type: "audio", transcript: text } });
        this.send({ type: "response.output_item.done", response_id: response.id, output_index: outputIndex, item });
        this.send({ type: "conversation.item.done", previous_item_id: previous, item });
      } else {
        const callId = id("call");
        const args = JSON.stringify(action.arguments ?? {});
        const item: Item = { id: id("item"), type: "function_call", name: action.call, call_id: callId, arguments: "", status: "in_progress" };
        this.items.push(item);
        output.push(item);
        this.send({ type: "response.output_item.added", response_id: response.id, output_index: outputIndex, item });
        this.send({ type: "conversation.item.added", previous_item_id: previous, item });
        this.send({ type: "response.function_call_arguments.delta", response_id: response.id, item_id: item.id, output_index: outputIndex, call_id: callId, delta: args });
        this.send({ type: "response.function_call_arguments.done", response_id: response.id, item_id: item.id, output_index: outputIndex, call_id: callId, arguments: args });
        Object.assign(item, { arguments: args, status: "completed" });
        this.record.toolCalls.push({ name: action.call, arguments: args, output: null });
        this.lastToolCall = { name: action.call, callId };
        this.send({ type: "response.output_item.done", response_id: response.id, output_index: outputIndex, item });
        this.send({ type: "conversation.item.done", previous_item_id: previous, item });
      }
    }
    this.activeResponse = null;
    this.send({
      type: "response.done",
      response: {
        id: response.id,
        object: "realtime.response",
        status: response.cancelled ? "cancelled" : "completed",
        output,
        usage: { total_tokens: 0, input_tokens: 0, output_tokens: 0, input_token_details: {}, output_token_details: {} },
      },
    });
    // After the agent spoke without handing the turn to a tool, wait for the callee; silence makes it check in.
    const endsCall = actions.some((action) => "call" in action);
    if (spokenMs > 0 && !endsCall && !response.cancelled) this.silenceDeadlineMs = this.inputMs + spokenMs + CALLEE_SILENCE_TIMEOUT_MS;
  }

  close() {
    this.ws.terminate();
  }
}

/** `phone`: the scripted phone conversations only; `test-call`: also answers speech and text it cannot recognize. */
export type RealtimeScript = "phone" | "test-call";

function textOfUserItem(item: Item): string {
  const content = Array.isArray(item.content) ? (item.content as Array<{ text?: unknown; transcript?: unknown }>) : [];
  return content.map((part) => String(part.text ?? part.transcript ?? "")).join(" ");
}

const TYPED_OPT_OUT = /\b(remove me|do not call|don'?t call|stop calling|unsubscribe)\b/i;
const TYPED_BOOK = /\b(book|yes|sounds good|schedule)\b/i;
const TYPED_END = /\b(bye|goodbye|not now|not interested|busy)\b/i;

/**
 * A browser test call's agent (`sim_script=test-call`), for what the closed-vocabulary recognizer cannot read. A typed
 * turn is read for phrases: "remove me" / "stop calling" → opt_out; "book" / "yes" → book_meeting; "bye" / "not now"
 * → goodbye and end_call. Speech (and typed text without those phrases) is answered by the caller's turn count:
 * the 1st → the intro, the 2nd → book_meeting, later ones → goodbye and end_call.
 */
export function testCallReply(typed: string | null, turn: number): AgentAction[] {
  if (typed !== null && TYPED_OPT_OUT.test(typed)) return [{ call: "opt_out", arguments: {} }];
  if (typed !== null && TYPED_BOOK.test(typed)) return [{ call: "book_meeting", arguments: { preferredStartTime: null } }];
  if (typed !== null && TYPED_END.test(typed)) return [{ say: "agent.no-problem" }, { call: "end_call", arguments: { reason: "caller ended" } }];
  if (turn <= 1) return [{ say: "agent.intro" }];
  if (turn === 2) return [{ call: "book_meeting", arguments: { preferredStartTime: null } }];
  return [{ say: "agent.no-problem" }, { call: "end_call", arguments: { reason: "conversation over" } }];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `session.update` semantics: objects merge field by field, anything else (arrays, values, null) replaces. */
function mergeConfig(current: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(update)) merged[key] = isPlainObject(value) && isPlainObject(merged[key]) ? mergeConfig(merged[key], value) : value;
  return merged;
}

/**
 * Agent speech for text the simulator has no clip of (a tool told it what to say): the introduction's audio, cut or
 * repeated to the text's spoken length (about 60 ms per character at espeak-ng's 175 words per minute).
 */
function speechOfLength(text: string): Buffer {
  const intro = loadClip("agent.intro");
  const bytes = Math.max(8 * 400, Math.round(text.length * 60 * 8));
  const audio = Buffer.alloc(bytes);
  for (let offset = 0; offset < bytes; offset += intro.length) intro.copy(audio, offset, 0, Math.min(intro.length, bytes - offset));
  return audio;
}

const CALLEE_CLIPS = VOICE_CLIPS.filter((clip) => clip.speaker === "callee" || clip.speaker === "tone" || clip.speaker === "person" || clip.speaker === "menu").map((clip) => clip.id as VoiceClipId);

/**
 * The known clip inside this audio: 40 ms windows taken at a third, two thirds and near the end of each clip, any
 * of them found byte for byte (the start of an utterance may be cut off, e.g. spoken before the session was ready).
 */
export function recognize(audio: Buffer): VoiceClipId | null {
  for (const clip of CALLEE_CLIPS) {
    const bytes = loadClip(clip);
    const probes = [bytes.length / 3, (2 * bytes.length) / 3, bytes.length - 480].map((at) => Math.max(0, Math.min(Math.floor(at), bytes.length - 320)));
    if (probes.some((at) => audio.indexOf(bytes.subarray(at, at + 320)) >= 0)) return clip;
  }
  return null;
}
