import type { AnsweredByActions, GreetingMode } from "@/db/schema/call-quality";
import type { EffectiveAnswerMoves } from "@/server/voice/answer-classifier/answer-moves";

/**
 * The agent's settings that only the real voice engine uses (`VOICE_ENGINE=twilio-realtime`): how long the phone
 * rings, the longest a call may last, the speech-to-speech voice, the message left on voicemail, when it greets and
 * what it does for each class of answerer. The simulator ignores them. Bounds here are the ones the console and its
 * tRPC schema enforce.
 */
export const REALTIME_VOICES = ["marin", "cedar", "alloy", "ash", "ballad", "coral", "echo", "sage", "shimmer", "verse"] as const;
export type RealtimeVoice = (typeof REALTIME_VOICES)[number];

export const RING_TIMEOUT_SECONDS = { min: 5, max: 120, default: 30 } as const;
export const MAX_CALL_SECONDS = { min: 30, max: 3600, default: 600 } as const;
export const VOICEMAIL_MESSAGE_MAX_LENGTH = 1000;

export const CALL_PURPOSE_MAX_LENGTH = 300;

export type AgentVoiceSettings = {
  voicemailMessage: string | null;
  ringTimeoutSeconds: number;
  maxCallSeconds: number;
  voice: RealtimeVoice;
  /** `on-answer`: the agent greets as the media stream starts; `wait-for-callee`: it lets the callee speak first. */
  greetingMode: GreetingMode;
  /** Why the agent calls, in a few words ("about your recent enquiry"): what it tells an automated call screener. */
  callPurpose: string | null;
  /** What the agent does when a machine, fax, phone menu, call screener or an unknown answerer picks up. */
  answeredByActions: AnsweredByActions;
  /** The move per class the answer classifier decides, every class filled in (the agent's choice or the default). */
  answerMoves: EffectiveAnswerMoves;
};
