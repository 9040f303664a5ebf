"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { TExportConsentRecordsResponse } from "@/server/routers/consent/export-consent-records.schema";
import { useTRPC } from "@/server/trpc/client/react";
import { downloadCsv } from "../../../_components/download-csv";
import { useCan } from "../../../_components/org-context";
import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { CheckboxField } from "../../../_components/ui/checkbox";
import { Field } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { Input } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { ErrorState, Loading } from "../../../_components/ui/states";
import { toast } from "../../../_components/ui/toast";
import { CallingHoursSection } from "./calling-hours-section";
import { PrivacySection } from "./privacy-section";

const EXPORT_COLUMNS = [
  "sequenceId",
  "agentId",
  "name",
  "phoneNumber",
  "enrolledAt",
  "consentType",
  "capturedAt",
  "source",
  "evidenceUrl",
  // One row per dialed call: its disclosures audit trail (empty when the contact was not dialed yet).
  "callId",
  "dialedAt",
  "identificationSpoken",
  "identificationOffsetMs",
  "identificationText",
  "recordingNoticeRequired",
  "recordingNoticeReason",
  "recordingNoticeJurisdictions",
  "recordingNoticeSpoken",
  "recordingNoticeOffsetMs",
  "recordingNoticeText",
  "recording",
  "recordingStoppedOffsetMs",
];

function localDate(daysAgo: number): string {
  const date = new Date(Date.now() - daysAgo * 86_400_000);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
}

/** Local midnight of a `yyyy-mm-dd` date as an instant. */
function startOfLocalDay(value: string, plusDays = 0): string {
  const [year, month, day] = value.split("-").map(Number);
  return new Date(year!, month! - 1, day! + plusDays).toISOString();
}

type ExportedCall = TExportConsentRecordsResponse["records"][number]["calls"][number];

function disclosureColumns(call: ExportedCall): Record<string, string | null> {
  const { identification, recordingNotice, recording } = call.disclosures;
  const text = (value: number | boolean | null) => (value === null ? null : String(value));
  return {
    callId: call.callId,
    dialedAt: call.dialedAt,
    identificationSpoken: text(identification.spoken),
    identificationOffsetMs: text(identification.offsetMs),
    identificationText: identification.text,
    recordingNoticeRequired: text(recordingNotice.required),
    recordingNoticeReason: recordingNotice.reason,
    recordingNoticeJurisdictions: recordingNotice.jurisdictions.join(" "),
    recordingNoticeSpoken: text(recordingNotice.spoken),
    recordingNoticeOffsetMs: text(recordingNotice.offsetMs),
    recordingNoticeText: recordingNotice.text || null,
    recording: recording.state,
    recordingStoppedOffsetMs: text(recording.offsetMs),
  };
}

function SettingsSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const settings = useQuery(trpc.organizations.callingSettings.queryOptions());
  const [maxConcurrent, setMaxConcurrent] = useState<string | null>(null);
  const settingsKey = trpc.organizations.callingSettings.queryKey();
  const update = useMutation(
    trpc.organizations.updateCallingSettings.mutationOptions({
      // The checkbox follows the click at once; a refused change puts the stored value back.
      onMutate: (changes) => {
        const previous = queryClient.getQueryData(settingsKey);
        if (previous && changes.requireConsent !== undefined) queryClient.setQueryData(settingsKey, { ...previous, requireConsent: changes.requireConsent });
        return { previous };
      },
      onError: (_error, _changes, context) => {
        if (context?.previous) queryClient.setQueryData(settingsKey, context.previous);
      },
      onSuccess: (data, changes) => {
        queryClient.setQueryData(settingsKey, data);
        setMaxConcurrent(null);
        if (changes.maxConcurrentCalls !== undefined) toast({ title: "Limit saved" });
      },
    }),
  );

  function body() {
    if (settings.isPending) return <Loading rows={2} />;
    if (settings.isError) return <ErrorState error={settings.error} retry={() => void settings.refetch()} />;
    const concurrentValue = maxConcurrent ?? (settings.data.maxConcurrentCalls === null ? "" : String(settings.data.maxConcurrentCalls));
    const errors = formErrors(update.error, ["maxConcurrentCalls"] as const);
    const onSaveConcurrent = (event: FormEvent) => {
      event.preventDefault();
      update.mutate({ maxConcurrentCalls: concurrentValue.trim() === "" ? null : Number(concurrentValue) });
    };
    return (
      <div className="flex flex-col gap-4">
        <CheckboxField
          label="Require a consent record for every enrolled contact"
          hint="When this is on, a contact can only be enrolled with a record of their consent to be called: what kind of consent, when and where they gave it. Contacts enrolled without one are refused."
          checked={settings.data.requireConsent}
          disabled={!can.admin || update.isPending}
          onCheckedChange={(checked) => update.mutate({ requireConsent: checked })}
        />
        <form onSubmit={onSaveConcurrent} className="flex flex-wrap items-start gap-3">
          <Field
            label="Maximum concurrent calls (whole organization)"
            id="org-max-concurrent"
            className="w-full sm:max-w-md"
            hint="Leave it empty for no organization-wide limit. Enforced when calls are dialed: calls beyond it wait for a free line."
            error={errors.fields.maxConcurrentCalls}
          >
            <Input type="number" min={1} max={10000} value={concurrentValue} disabled={!can.admin} onChange={(e) => setMaxConcurrent(e.target.value)} placeholder="No limit" />
          </Field>
          {can.admin && (
            <Button type="submit" className="sm:mt-6.5" disabled={update.isPending || maxConcurrent === null}>
              Save
            </Button>
          )}
        </form>
        {errors.message && <Alert tone="error">{errors.message}</Alert>}
      </div>
    );
  }

  return (
    <Section title="Organization settings" description={can.admin ? undefined : "Only admins can change these settings."}>
      {body()}
    </Section>
  );
}

function ConsentExportSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [from, setFrom] = useState(localDate(30));
  const [to, setTo] = useState(localDate(0));
  const [exporting, setExporting] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [exported, setExported] = useState<number | null>(null);

  async function onExport(event: FormEvent) {
    event.preventDefault();
    setExporting(true);
    setError(null);
    setExported(null);
    try {
      const range = { from: startOfLocalDay(from), to: startOfLocalDay(to, 1) };
      const rows: Array<Record<string, string | null>> = [];
      let after: { enrolledAt: string; sequenceId: string } | null = null;
      do {
        const chunk: TExportConsentRecordsResponse = await queryClient.fetchQuery(trpc.consent.export.queryOptions({ ...range, after }, { staleTime: 0 }));
        for (const record of chunk.records) {
          const contact = {
            sequenceId: record.sequenceId,
            agentId: record.agentId,
            name: record.name,
            phoneNumber: record.phoneNumber,
            enrolledAt: record.enrolledAt,
            consentType: record.consent.type,
            capturedAt: record.consent.capturedAt,
            source: record.consent.source,
            evidenceUrl: record.consent.evidenceUrl,
          };
          if (record.calls.length === 0) rows.push(contact);
          for (const call of record.calls) rows.push({ ...contact, ...disclosureColumns(call) });
        }
        after = chunk.nextAfter;
      } while (after !== null);
      await downloadCsv(`consent-records-${from}-to-${to}.csv`, rows, EXPORT_COLUMNS);
      setExported(rows.length);
    } catch (caught) {
      setError(caught);
    } finally {
      setExporting(false);
    }
  }

  const errors = formErrors(error, ["from", "to"] as const);

  return (
    <Section
      title="Consent records"
      description="Download a CSV of the consent records of the contacts enrolled between two dates (in your local time, at most 366 days apart)."
    >
      <form onSubmit={(e) => void onExport(e)} className="flex flex-wrap items-start gap-3">
        <Field label="Enrolled from" id="consent-from" className="w-full sm:w-48" error={errors.fields.from}>
          <Input type="date" value={from} required onChange={(e) => setFrom(e.target.value)} />
        </Field>
        <Field label="to (inclusive)" id="consent-to" className="w-full sm:w-48" error={errors.fields.to}>
          <Input type="date" value={to} required onChange={(e) => setTo(e.target.value)} />
        </Field>
        <Button variant="primary" type="submit" className="sm:mt-6.5" disabled={exporting}>
          {exporting ? "Exporting…" : "Export CSV"}
        </Button>
      </form>
      {errors.message && (
        <Alert tone="error" className="mt-3">
          {errors.message}
        </Alert>
      )}
      {exported !== null && (
        <p className="mt-3 text-sm text-muted-foreground" role="status" data-testid="consent-export-count">
          {exported.toLocaleString()} record{exported === 1 ? "" : "s"} exported.
        </p>
      )}
    </Section>
  );
}

export function ComplianceView() {
  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Compliance"
        description="Whether contacts need a consent record to be enrolled, how many calls may run at once, and a download of the consent records."
      />
      <SettingsSection />
      <CallingHoursSection />
      <PrivacySection />
      <ConsentExportSection />
    </div>
  );
}
