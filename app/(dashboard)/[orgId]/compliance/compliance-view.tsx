"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { TExportConsentRecordsResponse } from "@/server/routers/consent/export-consent-records.schema";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { downloadCsv } from "../../../_components/download-csv";
import { useCan } from "../../../_components/org-context";
import { PageHeader } from "../../../_components/ui/page-header";
import { ErrorState, Loading } from "../../../_components/ui/states";

const EXPORT_COLUMNS = ["sequenceId", "agentId", "name", "phoneNumber", "enrolledAt", "consentType", "capturedAt", "source", "evidenceUrl"];

function localDate(daysAgo: number): string {
  const date = new Date(Date.now() - daysAgo * 86_400_000);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
}

/** Local midnight of a `yyyy-mm-dd` date as an instant. */
function startOfLocalDay(value: string, plusDays = 0): string {
  const [year, month, day] = value.split("-").map(Number);
  return new Date(year!, month! - 1, day! + plusDays).toISOString();
}

function SettingsPanel() {
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
      onSuccess: (data) => {
        queryClient.setQueryData(settingsKey, data);
        setMaxConcurrent(null);
      },
    }),
  );
  if (settings.isPending) return <Loading rows={2} />;
  if (settings.isError) return <ErrorState error={settings.error} retry={() => void settings.refetch()} />;
  const concurrentValue = maxConcurrent ?? (settings.data.maxConcurrentCalls === null ? "" : String(settings.data.maxConcurrentCalls));

  function onSaveConcurrent(event: FormEvent) {
    event.preventDefault();
    update.mutate({ maxConcurrentCalls: concurrentValue.trim() === "" ? null : Number(concurrentValue) });
  }

  return (
    <section className="panel" aria-labelledby="calling-settings">
      <h2 id="calling-settings" style={{ marginTop: 0 }}>
        Organization settings
      </h2>
      <div className="field">
        <label>
          <input
            type="checkbox"
            checked={settings.data.requireConsent}
            disabled={!can.admin || update.isPending}
            onChange={(e) => update.mutate({ requireConsent: e.target.checked })}
          />{" "}
          Require a consent record for every enrolled contact
        </label>
        <span className="hint">Enrollment then refuses contacts without `consent` (MISSING_CONSENT).</span>
      </div>
      <form onSubmit={onSaveConcurrent} className="row">
        <div className="field">
          <label htmlFor="org-max-concurrent">Maximum concurrent calls (whole organization)</label>
          <input
            id="org-max-concurrent"
            type="number"
            min={1}
            max={10000}
            value={concurrentValue}
            disabled={!can.admin}
            onChange={(e) => setMaxConcurrent(e.target.value)}
            placeholder="No limit"
            aria-describedby="org-max-concurrent-hint"
          />
          <span id="org-max-concurrent-hint" className="hint">
            Empty: no organization limit. Calls beyond it wait for a free line (applied to dialing in the next release).
          </span>
        </div>
        {can.admin && (
          <div className="field" style={{ flex: "0 0 auto" }}>
            <button className="btn" type="submit" disabled={update.isPending || maxConcurrent === null}>
              Save
            </button>
          </div>
        )}
      </form>
      {update.isError && (
        <div className="alert alert-error" role="alert">
          {errorMessage(update.error)}
        </div>
      )}
    </section>
  );
}

function ConsentExportPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [from, setFrom] = useState(localDate(30));
  const [to, setTo] = useState(localDate(0));
  const [exporting, setExporting] = useState(false);
  const [error, setError] = useState<string | null>(null);
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
          rows.push({
            sequenceId: record.sequenceId,
            agentId: record.agentId,
            name: record.name,
            phoneNumber: record.phoneNumber,
            enrolledAt: record.enrolledAt,
            consentType: record.consent.type,
            capturedAt: record.consent.capturedAt,
            source: record.consent.source,
            evidenceUrl: record.consent.evidenceUrl,
          });
        }
        after = chunk.nextAfter;
      } while (after !== null);
      await downloadCsv(`consent-records-${from}-to-${to}.csv`, rows, EXPORT_COLUMNS);
      setExported(rows.length);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setExporting(false);
    }
  }

  return (
    <section className="panel" aria-labelledby="consent-export">
      <h2 id="consent-export" style={{ marginTop: 0 }}>
        Consent records
      </h2>
      <p className="hint">A CSV of the consent records of the contacts enrolled between two dates (your local time, at most 366 days).</p>
      <form onSubmit={(e) => void onExport(e)} className="row">
        <div className="field">
          <label htmlFor="consent-from">Enrolled from</label>
          <input id="consent-from" type="date" value={from} required onChange={(e) => setFrom(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="consent-to">to (inclusive)</label>
          <input id="consent-to" type="date" value={to} required onChange={(e) => setTo(e.target.value)} />
        </div>
        <div className="field" style={{ flex: "0 0 auto" }}>
          <button className="btn btn-primary" type="submit" disabled={exporting}>
            {exporting ? "Exporting…" : "Export CSV"}
          </button>
        </div>
      </form>
      {error && (
        <div className="alert alert-error" role="alert">
          {error}
        </div>
      )}
      {exported !== null && (
        <p className="hint" role="status" data-testid="consent-export-count">
          {exported.toLocaleString()} record{exported === 1 ? "" : "s"} exported.
        </p>
      )}
    </section>
  );
}

export function ComplianceView() {
  return (
    <>
      <PageHeader
        title="Compliance"
        description="Consent records and calling limits (docs/compliance.md explains each rule)."
      />
      <SettingsPanel />
      <ConsentExportPanel />
    </>
  );
}
