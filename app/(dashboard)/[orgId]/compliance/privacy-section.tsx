"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { REDACTION_CATEGORIES } from "@/server/services/privacy/redaction-categories";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan } from "../../../_components/org-context";
import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { CheckboxField } from "../../../_components/ui/checkbox";
import { Field } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { Input, Textarea } from "../../../_components/ui/input";
import { ErrorState, Loading } from "../../../_components/ui/states";
import { toast } from "../../../_components/ui/toast";

const CATEGORY_LABELS: Record<(typeof REDACTION_CATEGORIES)[number], string> = {
  card: "Card numbers (Luhn-checked)",
  ssn: "US social security numbers",
  "bank-account": "Bank account numbers",
  "routing-number": "Routing numbers (ABA checksum)",
  "date-of-birth": "Dates of birth",
  email: "Email addresses other than the contact's",
  phone: "Phone numbers other than the contact's",
};

/** `name: pattern` per line ⇄ the settings' custom patterns. */
function patternsToText(patterns: Array<{ name: string; pattern: string }>): string {
  return patterns.map((entry) => `${entry.name}: ${entry.pattern}`).join("\n");
}
/** The line (1-based) of each pattern `textToPatterns` reads: blank lines are skipped. */
function patternLines(text: string): number[] {
  return text.split("\n").flatMap((line, index) => (line.trim() ? [index + 1] : []));
}
function textToPatterns(text: string): Array<{ name: string; pattern: string }> {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.indexOf(":");
      return at < 0 ? { name: line, pattern: "" } : { name: line.slice(0, at).trim(), pattern: line.slice(at + 1).trim() };
    });
}

/** Redaction categories and patterns, retention (docs/compliance.md "Redaction", "Retention"). */
export function PrivacySection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const settings = useQuery(trpc.organizations.privacySettings.queryOptions());
  const [patterns, setPatterns] = useState<string | null>(null);
  const [retention, setRetention] = useState<string | null>(null);
  const key = trpc.organizations.privacySettings.queryKey();
  const update = useMutation(
    trpc.organizations.updatePrivacySettings.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(key, data);
        setPatterns(null);
        setRetention(null);
        toast({ title: "Privacy settings saved" });
      },
    }),
  );

  function body() {
    if (settings.isPending) return <Loading rows={3} />;
    if (settings.isError) return <ErrorState error={settings.error} retry={() => void settings.refetch()} />;
    const data = settings.data;
    const patternsValue = patterns ?? patternsToText(data.redactionPatterns);
    const retentionValue = retention ?? (data.retentionDays === null ? "" : String(data.retentionDays));
    // A refused pattern (`redactionPatterns.2.pattern`) is shown under the text box with the line it is on.
    const lines = patternLines(patternsValue);
    const errors = formErrors(update.error, (path) => {
      if (path[0] === "redactionPatterns") return { field: "redactionPatterns", label: path.length > 1 ? `Line ${lines[Number(path[1])] ?? Number(path[1]) + 1}` : undefined };
      if (path[0] === "retentionDays") return { field: "retentionDays" };
      return null;
    });
    const toggle = (category: (typeof REDACTION_CATEGORIES)[number], on: boolean) =>
      update.mutate({ redactionCategories: on ? [...data.redactionCategories, category] : data.redactionCategories.filter((entry) => entry !== category) });
    const onSave = (event: FormEvent) => {
      event.preventDefault();
      update.mutate({ redactionPatterns: textToPatterns(patternsValue), retentionDays: retentionValue.trim() === "" ? null : Number(retentionValue) });
    };
    return (
      <div className="flex flex-col gap-4">
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium">Redact from transcripts, analysis, webhooks, the events feed and recordings</legend>
          {REDACTION_CATEGORIES.map((category) => (
            <CheckboxField
              key={category}
              label={CATEGORY_LABELS[category]}
              checked={data.redactionCategories.includes(category)}
              disabled={!can.admin || update.isPending}
              onCheckedChange={(checked) => toggle(category, checked)}
            />
          ))}
        </fieldset>
        <form onSubmit={onSave} className="flex flex-col gap-3">
          <Field
            label="Custom patterns"
            id="privacy-patterns"
            hint="One per line, `name: regular expression` (matched case-insensitively), e.g. `member-id: MBR-\d{6}`. Found text becomes [redacted:name]."
            error={errors.fields.redactionPatterns}
          >
            <Textarea value={patternsValue} disabled={!can.admin} className="min-h-20 font-mono" onChange={(e) => setPatterns(e.target.value)} />
          </Field>
          <Field
            label="Keep recordings, transcripts and analysis for (days)"
            id="privacy-retention"
            className="w-full sm:max-w-md"
            hint="1–730 days after the call ended; empty: no organization limit. Deleted data answers no-recording and an empty transcript, with the reason retention."
            error={errors.fields.retentionDays}
          >
            <Input type="number" min={1} max={730} value={retentionValue} disabled={!can.admin} placeholder="No limit" onChange={(e) => setRetention(e.target.value)} />
          </Field>
          {can.admin && (
            <Button type="submit" className="self-start" disabled={update.isPending || (patterns === null && retention === null)}>
              Save
            </Button>
          )}
        </form>
        <CheckboxField
          label="Do not keep recordings"
          hint="Calls are not recorded at all (transcripts are still kept, redacted, for the retention period)."
          checked={!data.keepRecordings}
          disabled={!can.admin || update.isPending}
          onCheckedChange={(checked) => update.mutate({ keepRecordings: !checked })}
        />
        {errors.message && <Alert tone="error">{errors.message}</Alert>}
      </div>
    );
  }

  return (
    <Section title="Redaction and retention" description={can.admin ? undefined : "Only admins can change these settings."}>
      {body()}
    </Section>
  );
}
