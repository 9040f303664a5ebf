"use client";

import { CALL_PURPOSE_MAX_LENGTH, MAX_CALL_SECONDS, REALTIME_VOICES, RING_TIMEOUT_SECONDS, VOICEMAIL_MESSAGE_MAX_LENGTH } from "@/server/voice/agent-voice-settings";
import { ANSWER_MOVES, type AnswerMove } from "@/server/voice/answer-classifier/answer-moves";
import type { AnswerClass } from "@/server/voice/answer-classifier/types";
import { ANSWERED_BY_ALLOWED_ACTIONS, DEFAULT_ANSWERED_BY_ACTIONS } from "@/server/voice/call-quality";
import { Field } from "../../../../_components/ui/field";
import { Input, NativeSelect, Textarea } from "../../../../_components/ui/input";
import type { AgentDraft } from "./agent-draft";

type VoiceFields = Pick<AgentDraft, "voicemailMessage" | "ringTimeoutSeconds" | "maxCallSeconds" | "voice" | "greetingMode" | "callPurpose" | "answeredByActions" | "answerMoves">;
type ActionClass = keyof typeof ANSWERED_BY_ALLOWED_ACTIONS;

const CLASS_LABELS: Record<ActionClass, string> = { machine: "Voicemail", screener: "Call screener", ivr: "Phone menu", fax: "Fax", unknown: "Not sure who answered" };
const ACTION_LABELS: Record<string, string> = {
  "leave-message": "Leave the voicemail message",
  "hang-up": "Hang up",
  "answer-screener": "Say the agent's name and purpose, then continue",
  converse: "Talk as with a person",
};

const ANSWER_CLASS_LABELS: Record<AnswerClass, string> = {
  human: "A person",
  voicemail: "Voicemail",
  ivr: "Phone menu",
  screener: "Call screener",
  fax: "Fax",
  intercept: "Carrier message (number not in service)",
  "hold-queue": "Hold queue or music",
};
const MOVE_LABELS: Record<AnswerMove, string> = {
  converse: "Talk at once",
  "leave-voicemail": "Leave the voicemail message after the beep",
  navigate: "Navigate the menu toward the phone-menu goal",
  "announce-and-wait": "Say the agent's name and purpose, then wait for the person",
  "end-invalid-number": "End as Invalid Phone Number and suppress the number",
  wait: "Wait on the line",
  "hang-up": "Hang up",
};

/**
 * The real voice engine's settings of an agent (ignored by the simulator): ring timeout, call length, voice, voicemail,
 * when it greets, its purpose (for call screeners) and what it does for each kind of answerer (docs/call-quality.md).
 */
export function VoiceCallSettings({ value, onChange }: { value: VoiceFields; onChange: (patch: Partial<VoiceFields>) => void }) {
  const seconds = (raw: string) => (raw.trim() === "" ? undefined : Number(raw));
  return (
    <div className="flex flex-col gap-3">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <Field label="Ring timeout (seconds)" id="voice-ring-timeout">
          <Input
            type="number"
            min={RING_TIMEOUT_SECONDS.min}
            max={RING_TIMEOUT_SECONDS.max}
            value={value.ringTimeoutSeconds ?? RING_TIMEOUT_SECONDS.default}
            onChange={(e) => onChange({ ringTimeoutSeconds: seconds(e.target.value) })}
          />
        </Field>
        <Field label="Maximum call length (seconds)" id="voice-max-call">
          <Input
            type="number"
            min={MAX_CALL_SECONDS.min}
            max={MAX_CALL_SECONDS.max}
            value={value.maxCallSeconds ?? MAX_CALL_SECONDS.default}
            onChange={(e) => onChange({ maxCallSeconds: seconds(e.target.value) })}
          />
        </Field>
        <Field label="Voice" id="voice-voice">
          <NativeSelect value={value.voice ?? REALTIME_VOICES[0]} onChange={(e) => onChange({ voice: e.target.value as VoiceFields["voice"] })}>
            {REALTIME_VOICES.map((voice) => (
              <option key={voice} value={voice}>
                {voice.charAt(0).toUpperCase() + voice.slice(1)}
              </option>
            ))}
          </NativeSelect>
        </Field>
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <Field label="Greeting" id="voice-greeting-mode" hint="Greeting on answer starts within a second of the answer.">
          <NativeSelect value={value.greetingMode ?? "on-answer"} onChange={(e) => onChange({ greetingMode: e.target.value as VoiceFields["greetingMode"] })}>
            <option value="on-answer">Greet as soon as the call is answered</option>
            <option value="wait-for-callee">Wait for the callee to speak first</option>
          </NativeSelect>
        </Field>
        <Field label="Call purpose" id="voice-call-purpose" hint='What the agent tells an automated call screener, e.g. "about your recent enquiry".'>
          <Input value={value.callPurpose ?? ""} maxLength={CALL_PURPOSE_MAX_LENGTH} onChange={(e) => onChange({ callPurpose: e.target.value })} />
        </Field>
      </div>
      <fieldset className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <legend className="mb-1 text-sm font-medium">When this answers instead of a person</legend>
        {(Object.keys(ANSWERED_BY_ALLOWED_ACTIONS) as ActionClass[]).map((answeredBy) => (
          <Field key={answeredBy} label={CLASS_LABELS[answeredBy]} id={`voice-answered-by-${answeredBy}`}>
            <NativeSelect
              value={value.answeredByActions?.[answeredBy] ?? DEFAULT_ANSWERED_BY_ACTIONS[answeredBy]}
              onChange={(e) => onChange({ answeredByActions: { ...value.answeredByActions, [answeredBy]: e.target.value } })}
            >
              {ANSWERED_BY_ALLOWED_ACTIONS[answeredBy].map((action) => (
                <option key={action} value={action}>
                  {ACTION_LABELS[action]}
                </option>
              ))}
            </NativeSelect>
          </Field>
        ))}
      </fieldset>
      <fieldset className="grid grid-cols-1 gap-3 sm:grid-cols-2" data-testid="answer-moves">
        <legend className="mb-1 text-sm font-medium">Moves in the first seconds, by who answered (answer classifier)</legend>
        {(Object.keys(ANSWER_MOVES) as AnswerClass[]).map((answerClass) => {
          const moves: readonly AnswerMove[] = ANSWER_MOVES[answerClass];
          return (
            <Field key={answerClass} label={ANSWER_CLASS_LABELS[answerClass]} id={`voice-answer-move-${answerClass}`}>
              <NativeSelect
                value={value.answerMoves?.[answerClass] ?? moves[0]}
                disabled={moves.length === 1}
                onChange={(e) => onChange({ answerMoves: { ...value.answerMoves, [answerClass]: e.target.value } })}
              >
                {moves.map((move) => (
                  <option key={move} value={move}>
                    {MOVE_LABELS[move]}
                  </option>
                ))}
              </NativeSelect>
            </Field>
          );
        })}
      </fieldset>
      <Field label="Voicemail message" id="voice-voicemail" hint="Left after the beep when a call reaches voicemail. Empty: hang up without a message.">
        <Textarea
          value={value.voicemailMessage ?? ""}
          maxLength={VOICEMAIL_MESSAGE_MAX_LENGTH}
          className="min-h-20"
          onChange={(e) => onChange({ voicemailMessage: e.target.value })}
        />
      </Field>
    </div>
  );
}
