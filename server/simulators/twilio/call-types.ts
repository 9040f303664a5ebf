import { randomBytes } from "node:crypto";
import type { CalleeScenario } from "../voice-script";
import type { VoiceClipId } from "../voice-clips/clips";
import type { SimRoom } from "./conference";
import type { TwimlVerb } from "./twiml";

/** The types and small helpers every part of a simulated call shares (call.ts and the layers under it). */

export type CallStatus = "queued" | "initiated" | "ringing" | "in-progress" | "completed" | "busy" | "failed" | "no-answer" | "canceled";
export const FINAL: CallStatus[] = ["completed", "busy", "failed", "no-answer", "canceled"];

export type SentCallback = { kind: "status" | "amd" | "recording" | "twiml" | "caller-id-validation"; url: string; params: Record<string, string>; signature: string; status: number | null };

export type SimCallEnvironment = {
  accountSid: string;
  authToken: string;
  /** Media milliseconds per wall millisecond. */
  speed: number;
  resolvePublicUrl: (url: string) => string;
  callbacks: SentCallback[];
  log: (message: string) => void;
  /** Callees who hang up the moment the media stream has started (tests: a callee gone before the agent says a word). */
  hangsUpAtStreamStart?: (to: string) => boolean;
  /** A scenario set for this number (a phone menu, a contact who asks for a person, a screener); else the last digit's. */
  scenarioFor?: (to: string) => CalleeScenario | undefined;
  /** Who picks up a call placed from `from` (REST) whose callee alone would be `scenario`: the caller ID's answer rate (answer-rate.ts). */
  pickUp?: (from: string, scenario: CalleeScenario) => CalleeScenario;
  /** Conference rooms by name (the account's conferences). */
  rooms: Map<string, SimRoom>;
  /** Starts the child call of a `<Dial><Number>`/`<Sip>` (registered with the account's calls). */
  startChildCall: (params: CreateCallParams, options: SimCallOptions) => DialLeg;
};

/**
 * What a `<Dial>` uses of its child call. `SimCall` (call.ts) has it; it is named here so that the layers below
 * call.ts (call-core … call-twiml) never import the class built on top of them.
 */
export type DialLeg = {
  readonly sid: string;
  readonly status: CallStatus;
  readonly durationSeconds: number;
  readonly answered: Promise<boolean>;
  readonly isFinal: boolean;
  update(form: URLSearchParams): void;
  done(): Promise<void>;
};

export type SimCallOptions = {
  /** A `<Dial>`ed party: on answer it joins this room with the parent instead of fetching TwiML. */
  bridgeRoom?: SimRoom;
  parentSid?: string;
  /** A person calling one of our numbers (runInbound). */
  inbound?: InboundCaller;
};

export type CreateCallParams = Record<string, string | string[]>;

/** A person calling one of our numbers (`SimCall` with `inbound`): what they say, each line after the agent spoke. */
export type InboundCaller = { lines: VoiceClipId[] };

export { FRAME_BYTES, FRAME_MS } from "../callee-voice";

export function newSid(prefix: string): string {
  return prefix + randomBytes(16).toString("hex");
}

export const one = (params: CreateCallParams, key: string): string | undefined => {
  const value = params[key];
  return Array.isArray(value) ? value[0] : value;
};
export const many = (params: CreateCallParams, key: string): string[] => {
  const value = params[key];
  return (Array.isArray(value) ? value : value ? [value] : []).flatMap((v) => v.split(/[\s,]+/)).filter(Boolean);
};

/** `tone`: DTMF or hold music, which a listener does not take for the other side speaking. */
export type OutboundItem = { kind: "audio"; bytes: Buffer; tone?: boolean } | { kind: "mark"; name: string };
export type Action = { kind: "hangup" } | { kind: "redirect"; verbs: TwimlVerb[] };
