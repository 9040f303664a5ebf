"use client";

import { MAX_CALL_SECONDS, REALTIME_VOICES, RING_TIMEOUT_SECONDS, VOICEMAIL_MESSAGE_MAX_LENGTH } from "@/server/voice/agent-voice-settings";
import { Field } from "../../../../_components/ui/field";
import { Input, NativeSelect, Textarea } from "../../../../_components/ui/input";
import type { AgentDraft } from "./agent-draft";

type VoiceFields = Pick<AgentDraft, "voicemailMessage" | "ringTimeoutSeconds" | "maxCallSeconds" | "voice">;

/** The real voice engine's settings of an agent (ignored by the simulator): ring timeout, call length, voice, voicemail. */
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
