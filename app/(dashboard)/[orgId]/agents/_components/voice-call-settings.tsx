"use client";

import { MAX_CALL_SECONDS, REALTIME_VOICES, RING_TIMEOUT_SECONDS, VOICEMAIL_MESSAGE_MAX_LENGTH } from "@/server/voice/agent-voice-settings";
import type { AgentDraft } from "./agent-draft";

type VoiceFields = Pick<AgentDraft, "voicemailMessage" | "ringTimeoutSeconds" | "maxCallSeconds" | "voice">;

/** The real voice engine's settings of an agent (ignored by the simulator): ring timeout, call length, voice, voicemail. */
export function VoiceCallSettings({ value, onChange }: { value: VoiceFields; onChange: (patch: Partial<VoiceFields>) => void }) {
  const seconds = (raw: string) => (raw.trim() === "" ? undefined : Number(raw));
  return (
    <>
      <div className="row">
        <div className="field" style={{ flex: "0 1 200px" }}>
          <label htmlFor="voice-ring-timeout">Ring timeout (seconds)</label>
          <input
            id="voice-ring-timeout"
            type="number"
            min={RING_TIMEOUT_SECONDS.min}
            max={RING_TIMEOUT_SECONDS.max}
            value={value.ringTimeoutSeconds ?? RING_TIMEOUT_SECONDS.default}
            onChange={(e) => onChange({ ringTimeoutSeconds: seconds(e.target.value) })}
          />
        </div>
        <div className="field" style={{ flex: "0 1 200px" }}>
          <label htmlFor="voice-max-call">Maximum call length (seconds)</label>
          <input
            id="voice-max-call"
            type="number"
            min={MAX_CALL_SECONDS.min}
            max={MAX_CALL_SECONDS.max}
            value={value.maxCallSeconds ?? MAX_CALL_SECONDS.default}
            onChange={(e) => onChange({ maxCallSeconds: seconds(e.target.value) })}
          />
        </div>
        <div className="field" style={{ flex: "0 1 200px" }}>
          <label htmlFor="voice-voice">Voice</label>
          <select id="voice-voice" value={value.voice ?? REALTIME_VOICES[0]} onChange={(e) => onChange({ voice: e.target.value as VoiceFields["voice"] })}>
            {REALTIME_VOICES.map((voice) => (
              <option key={voice} value={voice}>
                {voice}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="field">
        <label htmlFor="voice-voicemail">Voicemail message</label>
        <textarea
          id="voice-voicemail"
          value={value.voicemailMessage ?? ""}
          maxLength={VOICEMAIL_MESSAGE_MAX_LENGTH}
          onChange={(e) => onChange({ voicemailMessage: e.target.value })}
          placeholder="Left after the beep when a call reaches voicemail. Empty: hang up without a message."
        />
      </div>
    </>
  );
}
