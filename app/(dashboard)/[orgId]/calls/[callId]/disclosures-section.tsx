import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";
import { Section } from "../../../../_components/ui/card";

type CallMetadata = inferRouterOutputs<AppRouter>["conversations"]["metadata"]["metadata"][number];
type Disclosures = NonNullable<CallMetadata["disclosures"]>;

function offset(ms: number | null): string {
  if (ms === null) return "";
  const seconds = Math.round(ms / 100) / 10;
  return ` at ${seconds.toFixed(1)} s`;
}

function Spoken({ label, disclosure }: { label: string; disclosure: Disclosures["identification"] }) {
  return (
    <div className="flex flex-col gap-1">
      <dt className="font-medium">
        {label}:{" "}
        <span className="font-normal text-muted-foreground">
          {disclosure.spoken ? `spoken${offset(disclosure.offsetMs)}${disclosure.via === "voicemail" ? " (voicemail message)" : ""}` : "not spoken"}
        </span>
      </dt>
      <dd className="text-sm">“{disclosure.text}”</dd>
    </div>
  );
}

const RECORDING_TEXT: Record<Disclosures["recording"]["state"], string> = {
  on: "recorded",
  declined: "the contact objected: recording stopped",
  "not-recorded": "not recorded (the organization keeps no recordings)",
};

/** The call's audit trail: what the contact was told and when, whether it was recorded, the consent relied on. */
export function DisclosuresSection({ call }: { call: CallMetadata }) {
  const disclosures = call.disclosures;
  if (!disclosures) return null;
  const notice = disclosures.recordingNotice;
  return (
    <Section title="Disclosures and consent" data-testid="call-disclosures">
      <dl className="flex flex-col gap-3">
        <Spoken label="Identification" disclosure={disclosures.identification} />
        {notice.required ? (
          <Spoken label={`Recording notice (${notice.reason === "agent-always" ? "the agent gives it on every call" : `all-party consent: ${notice.jurisdictions.join(", ")}`})`} disclosure={notice} />
        ) : (
          <div>
            <dt className="font-medium">
              Recording notice: <span className="font-normal text-muted-foreground">not required for this number</span>
            </dt>
          </div>
        )}
        <div>
          <dt className="font-medium">
            Recording:{" "}
            <span className="font-normal text-muted-foreground">
              {RECORDING_TEXT[disclosures.recording.state]}
              {disclosures.recording.state === "declined" ? offset(disclosures.recording.offsetMs) : ""}
            </span>
          </dt>
        </div>
        <div>
          <dt className="font-medium">
            Consent relied on:{" "}
            <span className="font-normal text-muted-foreground">
              {disclosures.consent ? `${disclosures.consent.type.replace(/_/g, " ")}, captured ${disclosures.consent.capturedAt} (${disclosures.consent.source})` : "no consent record was given at enrollment"}
            </span>
          </dt>
        </div>
        {call.contentRemoved && (
          <div>
            <dt className="font-medium">
              Retention: <span className="font-normal text-muted-foreground">transcript, analysis and recording deleted {call.contentRemoved.removedAt}</span>
            </dt>
          </div>
        )}
      </dl>
    </Section>
  );
}
