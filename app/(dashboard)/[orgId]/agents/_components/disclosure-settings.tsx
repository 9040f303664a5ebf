"use client";

import { DEFAULT_IDENTIFICATION, DEFAULT_RECORDING_NOTICE, DEFAULT_TRANSCRIPTION_NOTICE, DISCLOSURE_MAX_LENGTH } from "@/server/services/privacy/disclosure-texts";
import { Field } from "../../../../_components/ui/field";
import { NativeSelect, Textarea } from "../../../../_components/ui/input";
import type { AgentDraft } from "./agent-draft";

type DisclosureFields = Pick<AgentDraft, "disclosureIdentification" | "disclosureRecordingNotice" | "recordingNoticeMode">;

/** What every connected call says first, word for word (docs/compliance.md "Disclosures"). */
export function DisclosureSettings({ value, onChange }: { value: DisclosureFields; onChange: (patch: Partial<DisclosureFields>) => void }) {
  return (
    <div className="flex flex-col gap-3">
      <Field
        label="Identification"
        id="disclosure-identification"
        hint="Spoken word for word before anything else on every connected call (and at the start of a voicemail message). {organization} and {agent} are filled in. Empty: the default."
      >
        <Textarea
          value={value.disclosureIdentification ?? ""}
          placeholder={DEFAULT_IDENTIFICATION}
          maxLength={DISCLOSURE_MAX_LENGTH}
          className="min-h-16"
          onChange={(e) => onChange({ disclosureIdentification: e.target.value })}
        />
      </Field>
      <Field label="Recording notice" id="disclosure-recording-notice" hint={`Spoken right after the identification where it is needed. Empty: the default, or on a call whose audio is not kept (callbacks, or when the organization keeps no recordings) "${DEFAULT_TRANSCRIPTION_NOTICE}"`}>
        <Textarea
          value={value.disclosureRecordingNotice ?? ""}
          placeholder={DEFAULT_RECORDING_NOTICE}
          maxLength={DISCLOSURE_MAX_LENGTH}
          className="min-h-16"
          onChange={(e) => onChange({ disclosureRecordingNotice: e.target.value })}
        />
      </Field>
      <Field label="When to give the recording notice" id="disclosure-notice-mode">
        <NativeSelect value={value.recordingNoticeMode ?? "by-state"} onChange={(e) => onChange({ recordingNoticeMode: e.target.value as DisclosureFields["recordingNoticeMode"] })}>
          <option value="by-state">Where the number's state requires every party's consent</option>
          <option value="always">On every call</option>
        </NativeSelect>
      </Field>
    </div>
  );
}
