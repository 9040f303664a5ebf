"use client";

import type { ReactNode } from "react";
import { Badge } from "../../../../_components/ui/badge";
import { Button } from "../../../../_components/ui/button";
import { CheckboxField } from "../../../../_components/ui/checkbox";
import { Field, FieldRow } from "../../../../_components/ui/field";
import { IdDetails } from "../../../../_components/ui/id-details";
import { Input, NativeSelect, Textarea } from "../../../../_components/ui/input";
import { LocalTime } from "../../../../_components/ui/time";
import type { AgentDraft, AgentView } from "./agent-draft";
import { NumberPoolPicker } from "./number-pool-picker";
import { StringListEditor } from "./string-list-editor";

type InputVariable = AgentDraft["inputVariables"][number];
type ExtractedVariable = AgentDraft["extractedVariables"][number];
type Outcome = AgentDraft["outcomes"][number];
type BookingConfig = NonNullable<AgentDraft["bookingConfig"]>;

/** One item of a repeated list (a variable, an outcome): a bordered group named for screen readers. */
function ListItem({ label, children }: { label: string; children: ReactNode }) {
  return (
    <fieldset className="flex min-w-0 flex-col gap-3 rounded-lg border border-border p-3" aria-label={label}>
      <legend className="px-1 text-sm font-semibold">{label}</legend>
      {children}
    </fieldset>
  );
}

const replaceAt = <T,>(items: T[], index: number, patch: Partial<T>) => items.map((item, i) => (i === index ? { ...item, ...patch } : item));

/**
 * The server's refusals shown beside the editor's own controls, by key: `name`, `status`, `prompt`, `timezones` and
 * `phoneNumbers` (the list), `timezones.2` (the third box on screen).
 */
export type AgentFieldErrors = Partial<Record<string, string>>;

const listErrors = (errors: AgentFieldErrors, key: string, count: number) => Array.from({ length: count }, (_, index) => errors[`${key}.${index}`]);

export function GeneralFields({ draft, set, errors = {} }: { draft: AgentDraft; set: <K extends keyof AgentDraft>(key: K, value: AgentDraft[K]) => void; errors?: AgentFieldErrors }) {
  return (
    <div className="flex flex-col gap-4">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(0,1fr)_14rem]">
        <Field label="Name" id="agent-name" error={errors.name}>
          <Input value={draft.name} onChange={(e) => set("name", e.target.value)} required maxLength={200} />
        </Field>
        <Field label="Status" id="agent-status" error={errors.status}>
          <NativeSelect value={draft.status} onChange={(e) => set("status", e.target.value as AgentDraft["status"])}>
            <option value="ACTIVE">Active</option>
            <option value="PAUSED">Paused</option>
            <option value="ARCHIVED">Archived (cannot be scheduled)</option>
          </NativeSelect>
        </Field>
      </div>
      <div className="grid grid-cols-1 items-start gap-4 md:grid-cols-2">
        <StringListEditor
          id="timezone"
          label="Timezones"
          hint="Names such as America/New_York. The first one is used by steps whose window follows the agent's timezone."
          values={draft.timezones}
          onChange={(v) => set("timezones", v)}
          placeholder="America/New_York"
          addLabel="Add timezone"
          listId="timezone-options"
          error={errors.timezones}
          itemErrors={listErrors(errors, "timezones", draft.timezones.length)}
        />
        <NumberPoolPicker
          values={draft.phoneNumbers}
          onChange={(v) => set("phoneNumbers", v)}
          error={errors.phoneNumbers}
          itemErrors={listErrors(errors, "phoneNumbers", draft.phoneNumbers.length)}
        />
      </div>
    </div>
  );
}

export function PromptFields({ prompt, onChange, versions, error }: { prompt: string; onChange: (prompt: string) => void; versions: AgentView["promptVersions"]; error?: string }) {
  return (
    <div className="flex flex-col gap-3">
      <Field label="Prompt" id="agent-prompt" error={error}>
        <Textarea value={prompt} onChange={(e) => onChange(e.target.value)} required maxLength={20000} className="min-h-48" />
      </Field>
      {versions.length > 0 && (
        <details>
          <summary className="cursor-pointer">Prompt versions ({versions.length})</summary>
          <ul data-testid="prompt-versions" className="mt-2 flex flex-col gap-2">
            {versions.map((v) => (
              <li key={v.promptVersionId} className="rounded-md border border-border p-2.5">
                <div className="flex flex-wrap items-center gap-2">
                  <span>
                    Saved <LocalTime iso={v.createdAt} />
                  </span>
                  {v.current && <Badge tone="success">In use</Badge>}
                </div>
                <p className="text-sm break-words text-muted-foreground">{v.preview}</p>
                <IdDetails label="Version ID" ids={[{ label: "Version ID", value: v.promptVersionId }]} />
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

export function InputVariablesFields({ variables, onChange }: { variables: InputVariable[]; onChange: (variables: InputVariable[]) => void }) {
  return (
    <div className="flex flex-col gap-3">
      {variables.length === 0 && <p className="text-muted-foreground">No input variables.</p>}
      {variables.map((v, i) => (
        <ListItem key={v.id ?? `new-${i}`} label={`Input variable ${i + 1}`}>
          <FieldRow>
            <Field label="Slug" id={`input-${i}-slug`} hint="How your systems name it, e.g. company_name.">
              <Input value={v.slug} onChange={(e) => onChange(replaceAt(variables, i, { slug: e.target.value }))} placeholder="company_name" />
            </Field>
            <Field label="Display name" id={`input-${i}-name`}>
              <Input value={v.displayName} onChange={(e) => onChange(replaceAt(variables, i, { displayName: e.target.value }))} />
            </Field>
          </FieldRow>
          <Field label="Description" id={`input-${i}-description`}>
            <Input value={v.description} onChange={(e) => onChange(replaceAt(variables, i, { description: e.target.value }))} />
          </Field>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <CheckboxField id={`input-${i}-required`} label="Required" checked={v.required} onCheckedChange={(checked) => onChange(replaceAt(variables, i, { required: checked === true }))} />
            <Button size="sm" variant="danger" onClick={() => onChange(variables.filter((_, j) => j !== i))}>
              Delete variable
            </Button>
          </div>
        </ListItem>
      ))}
      <div>
        <Button size="sm" onClick={() => onChange([...variables, { slug: "", displayName: "", description: "", required: false }])}>
          Add input variable
        </Button>
      </div>
    </div>
  );
}

const EXTRACTED_TYPES: Array<{ value: ExtractedVariable["type"]; label: string }> = [
  { value: "STRING", label: "Text" },
  { value: "NUMBER", label: "Number" },
  { value: "BOOLEAN", label: "Yes or no" },
  { value: "DROPDOWN", label: "One of a list" },
  { value: "DATE/TIME", label: "Date and time" },
];

export function ExtractedVariablesFields({
  variables,
  onChange,
  systemSlugs,
}: {
  variables: ExtractedVariable[];
  onChange: (variables: ExtractedVariable[]) => void;
  systemSlugs: string[];
}) {
  return (
    <div className="flex flex-col gap-3">
      {variables.length === 0 && <p className="text-muted-foreground">No extracted variables.</p>}
      {variables.map((v, i) => (
        <ListItem key={v.id ?? `new-${i}`} label={`Extracted variable ${i + 1}`}>
          <div className="grid grid-cols-1 items-start gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_1fr_12rem]">
            <Field label="Slug" id={`extracted-${i}-slug`}>
              <Input value={v.slug} onChange={(e) => onChange(replaceAt(variables, i, { slug: e.target.value }))} />
            </Field>
            <Field label="Display name" id={`extracted-${i}-name`}>
              <Input value={v.displayName} onChange={(e) => onChange(replaceAt(variables, i, { displayName: e.target.value }))} />
            </Field>
            <Field label="Type" id={`extracted-${i}-type`}>
              <NativeSelect
                value={v.type}
                onChange={(e) => {
                  const type = e.target.value as ExtractedVariable["type"];
                  onChange(
                    replaceAt(variables, i, {
                      type,
                      dropdownOptions: type === "DROPDOWN" ? (v.dropdownOptions ?? [""]) : null,
                      datetimeFormat: type === "DATE/TIME" ? (v.datetimeFormat ?? "yyyy-MM-dd HH:mm:ss") : null,
                      formatDatetimeInUtc: type === "DATE/TIME" ? (v.formatDatetimeInUtc ?? false) : null,
                    }),
                  );
                }}
              >
                {EXTRACTED_TYPES.map((t) => (
                  <option key={t.value} value={t.value}>
                    {t.label}
                  </option>
                ))}
              </NativeSelect>
            </Field>
          </div>
          <Field label="Description" id={`extracted-${i}-description`} hint="Tells the analysis what to look for.">
            <Input value={v.description} onChange={(e) => onChange(replaceAt(variables, i, { description: e.target.value }))} />
          </Field>
          {v.type === "DROPDOWN" && (
            <StringListEditor
              id={`extracted-${i}-option`}
              label="Dropdown options"
              values={v.dropdownOptions ?? []}
              onChange={(options) => onChange(replaceAt(variables, i, { dropdownOptions: options }))}
              addLabel="Add option"
            />
          )}
          {v.type === "DATE/TIME" && (
            <div className="grid grid-cols-1 items-start gap-3 sm:grid-cols-2">
              <Field label="Date/time format" id={`extracted-${i}-format`} hint="A pattern such as yyyy-MM-dd HH:mm:ss.">
                <Input value={v.datetimeFormat ?? ""} onChange={(e) => onChange(replaceAt(variables, i, { datetimeFormat: e.target.value }))} />
              </Field>
              <CheckboxField
                id={`extracted-${i}-utc`}
                label="Format in UTC"
                className="sm:mt-7"
                checked={v.formatDatetimeInUtc ?? false}
                onCheckedChange={(checked) => onChange(replaceAt(variables, i, { formatDatetimeInUtc: checked === true }))}
              />
            </div>
          )}
          <div>
            <Button size="sm" variant="danger" onClick={() => onChange(variables.filter((_, j) => j !== i))}>
              Delete variable
            </Button>
          </div>
        </ListItem>
      ))}
      <div>
        <Button size="sm" onClick={() => onChange([...variables, { slug: "", displayName: "", description: "", type: "STRING" }])}>
          Add extracted variable
        </Button>
      </div>
      {systemSlugs.length > 0 && <p className="text-sm text-muted-foreground">Always extracted (built in, not editable): {systemSlugs.join(", ")}.</p>}
    </div>
  );
}

export function OutcomesFields({ outcomes, onChange, systemNames }: { outcomes: Outcome[]; onChange: (outcomes: Outcome[]) => void; systemNames: string[] }) {
  return (
    <div className="flex flex-col gap-3">
      {outcomes.length === 0 && <p className="text-muted-foreground">No outcomes.</p>}
      {outcomes.map((o, i) => (
        <ListItem key={o.id ?? `new-${i}`} label={`Outcome ${i + 1}`}>
          <FieldRow>
            <Field label="Name" id={`outcome-${i}-name`}>
              <Input value={o.name} onChange={(e) => onChange(replaceAt(outcomes, i, { name: e.target.value }))} />
            </Field>
            <Field label="Description" id={`outcome-${i}-description`}>
              <Input value={o.description} onChange={(e) => onChange(replaceAt(outcomes, i, { description: e.target.value }))} />
            </Field>
          </FieldRow>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <CheckboxField id={`outcome-${i}-enabled`} label="Enabled" checked={o.enabled} onCheckedChange={(checked) => onChange(replaceAt(outcomes, i, { enabled: checked === true }))} />
            {!o.id && (
              <Button size="sm" onClick={() => onChange(outcomes.filter((_, j) => j !== i))}>
                Discard new outcome
              </Button>
            )}
          </div>
        </ListItem>
      ))}
      <div>
        <Button size="sm" onClick={() => onChange([...outcomes, { name: "", description: "", enabled: true }])}>
          Add outcome
        </Button>
      </div>
      {systemNames.length > 0 && <p className="text-sm text-muted-foreground">Built-in outcomes (not editable): {systemNames.join(", ")}.</p>}
    </div>
  );
}

const BOOKING_FIELDS: Record<BookingConfig["mode"], Array<{ key: keyof BookingConfig; label: string }>> = {
  link: [{ key: "schedulingLinkId", label: "Scheduling link ID" }],
  crm: [
    { key: "routerId", label: "Handoff router ID" },
    { key: "distributionId", label: "Distribution ID" },
    { key: "workspaceId", label: "Workspace ID" },
    { key: "bookerId", label: "Booker ID" },
  ],
  concierge: [{ key: "conciergeRouterId", label: "Concierge router ID (stable)" }],
};

export function BookingFields({ config, onChange }: { config: AgentDraft["bookingConfig"]; onChange: (config: AgentDraft["bookingConfig"]) => void }) {
  return (
    <div className="flex flex-col gap-3">
      <Field label="Booking mode" id="booking-mode" className="max-w-80">
        <NativeSelect
          value={config?.mode ?? ""}
          onChange={(e) => {
            const mode = e.target.value as BookingConfig["mode"] | "";
            onChange(mode ? { mode, provider: "chili-piper" } : null);
          }}
        >
          <option value="">No booking</option>
          <option value="link">Link-based (scheduling link)</option>
          <option value="crm">CRM-dependent (handoff router)</option>
          <option value="concierge">Concierge (router)</option>
        </NativeSelect>
      </Field>
      {config && (
        <FieldRow>
          {BOOKING_FIELDS[config.mode].map((field) => (
            <Field label={field.label} id={`booking-${field.key}`} key={field.key}>
              <Input value={String(config[field.key] ?? "")} onChange={(e) => onChange({ ...config, [field.key]: e.target.value })} />
            </Field>
          ))}
        </FieldRow>
      )}
    </div>
  );
}
