"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState, type FormEvent, type ReactNode } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { LocalTime } from "../../../../_components/local-time";
import { useCan, useOrgPath } from "../../../../_components/org-context";
import type { AgentDraft, AgentView } from "./agent-draft";
import { StepsEditor } from "./steps-editor";
import { StringListEditor } from "./string-list-editor";
import { VoiceCallSettings } from "./voice-call-settings";

type InputVariable = AgentDraft["inputVariables"][number];
type ExtractedVariable = AgentDraft["extractedVariables"][number];
type Outcome = AgentDraft["outcomes"][number];
type BookingConfig = NonNullable<AgentDraft["bookingConfig"]>;

const EXTRACTED_TYPES: ExtractedVariable["type"][] = ["STRING", "NUMBER", "BOOLEAN", "DROPDOWN", "DATE/TIME"];
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

function Section({ id, title, description, children }: { id: string; title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id} style={{ marginTop: 0 }}>
        {title}
      </h2>
      {description && <p className="hint">{description}</p>}
      {children}
    </section>
  );
}

type Props = { mode: "create" } | { mode: "edit"; view: AgentView; onSaved: (message: string) => void };

export function AgentEditor(props: Props & { initial: AgentDraft }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const path = useOrgPath();
  const can = useCan();
  const [draft, setDraft] = useState<AgentDraft>(props.initial);
  const timezoneOptions = useMemo(() => (typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : []), []);
  const set = <K extends keyof AgentDraft>(key: K, value: AgentDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
  };

  const create = useMutation(
    trpc.agents.create.mutationOptions({
      onSuccess: async ({ agentId }) => {
        await queryClient.invalidateQueries({ queryKey: trpc.agents.listForConsole.queryKey() });
        router.push(path(`/agents/${encodeURIComponent(agentId)}?created=1`));
      },
    }),
  );
  const update = useMutation(
    trpc.agents.update.mutationOptions({
      onSuccess: async (result) => {
        // The detail view shows the message: this form is remounted with the stored configuration after the refetch.
        if (props.mode === "edit") props.onSaved(result.promptChanged ? `Saved. The prompt is now version ${result.promptVersionId}.` : "Saved.");
        await queryClient.invalidateQueries({ queryKey: trpc.agents.pathKey() });
      },
    }),
  );
  const mutation = props.mode === "create" ? create : update;

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const payload: AgentDraft = { ...draft, phoneNumbers: draft.phoneNumbers.filter((p) => p.trim()), timezones: draft.timezones.filter((t) => t.trim()) };
    if (props.mode === "create") create.mutate(payload);
    else update.mutate({ ...payload, agentId: props.view.agentId });
  }

  const updateInput = (i: number, patch: Partial<InputVariable>) => set("inputVariables", draft.inputVariables.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  const updateExtracted = (i: number, patch: Partial<ExtractedVariable>) =>
    set("extractedVariables", draft.extractedVariables.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  const updateOutcome = (i: number, patch: Partial<Outcome>) => set("outcomes", draft.outcomes.map((o, j) => (j === i ? { ...o, ...patch } : o)));
  const systemVariables = props.mode === "edit" ? props.view.extractedVariables.filter((v) => v.systemDefault) : [];
  const systemOutcomes = props.mode === "edit" ? props.view.outcomes.filter((o) => !o.customerDefined) : [];

  return (
    <form onSubmit={onSubmit} noValidate aria-label={props.mode === "create" ? "New agent" : "Agent configuration"}>
      <datalist id="timezone-options">
        {timezoneOptions.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
      {!can.admin && (
        <div className="alert alert-warn" role="note">
          You can read this configuration; only admins can change it.
        </div>
      )}
      <fieldset disabled={!can.admin || mutation.isPending} style={{ border: "none", padding: 0, margin: 0, minWidth: 0 }}>
        <Section id="general" title="General">
          <div className="row">
            <div className="field">
              <label htmlFor="agent-name">Name</label>
              <input id="agent-name" type="text" value={draft.name} onChange={(e) => set("name", e.target.value)} required maxLength={200} />
            </div>
            <div className="field" style={{ flex: "0 1 200px" }}>
              <label htmlFor="agent-status">Status</label>
              <select id="agent-status" value={draft.status} onChange={(e) => set("status", e.target.value as AgentDraft["status"])}>
                <option value="ACTIVE">Active</option>
                <option value="PAUSED">Paused</option>
                <option value="ARCHIVED">Archived (cannot be scheduled)</option>
              </select>
            </div>
          </div>
          <div className="row" style={{ alignItems: "flex-start" }}>
            <div style={{ flex: "1 1 260px" }}>
              <StringListEditor
                id="timezone"
                label="Timezones"
                hint="IANA names. The first one is used by steps whose window follows the agent's timezone."
                values={draft.timezones}
                onChange={(v) => set("timezones", v)}
                placeholder="America/New_York"
                addLabel="Add timezone"
                listId="timezone-options"
              />
            </div>
            <div style={{ flex: "1 1 260px" }}>
              <StringListEditor
                id="phone"
                label="Phone-number pool"
                hint="Caller IDs the agent dials from, E.164 (e.g. +12025550100)."
                values={draft.phoneNumbers}
                onChange={(v) => set("phoneNumbers", v)}
                placeholder="+12025550100"
                addLabel="Add number"
              />
            </div>
          </div>
        </Section>

        <Section id="prompt" title="Prompt" description="Each save that changes the prompt creates a new prompt version (prompt-ver.…); calls record the version they used.">
          <div className="field">
            <label htmlFor="agent-prompt">Prompt</label>
            <textarea id="agent-prompt" value={draft.prompt} onChange={(e) => set("prompt", e.target.value)} required maxLength={20000} />
          </div>
          {props.mode === "edit" && props.view.promptVersions.length > 0 && (
            <details>
              <summary>Prompt versions ({props.view.promptVersions.length})</summary>
              <ul data-testid="prompt-versions">
                {props.view.promptVersions.map((v) => (
                  <li key={v.promptVersionId}>
                    <code>{v.promptVersionId}</code> — <LocalTime iso={v.createdAt} />
                    {v.current && <span className="badge badge-ok"> current</span>}
                    <div className="hint">{v.preview}</div>
                  </li>
                ))}
              </ul>
            </details>
          )}
        </Section>

        <Section id="steps" title="Sequence steps" description="Each step waits its delay after the previous one ended, then runs inside its calling window.">
          <StepsEditor steps={draft.steps} agentZone={draft.timezones[0]} onChange={(steps) => set("steps", steps)} />
        </Section>

        <Section id="input-variables" title="Input variables" description="Values sent when a contact is enrolled. Required ones must be present; removing one hides it from the API (soft delete).">
          {draft.inputVariables.length === 0 && <p className="hint">No input variables.</p>}
          {draft.inputVariables.map((v, i) => (
            <fieldset key={v.id ?? `new-${i}`} className="list-item" aria-label={`Input variable ${i + 1}`}>
              <legend className="label-text">Input variable {i + 1}</legend>
              <div className="row">
                <div className="field">
                  <label htmlFor={`input-${i}-slug`}>Slug</label>
                  <input id={`input-${i}-slug`} type="text" value={v.slug} onChange={(e) => updateInput(i, { slug: e.target.value })} placeholder="company_name" />
                </div>
                <div className="field">
                  <label htmlFor={`input-${i}-name`}>Display name</label>
                  <input id={`input-${i}-name`} type="text" value={v.displayName} onChange={(e) => updateInput(i, { displayName: e.target.value })} />
                </div>
              </div>
              <div className="field">
                <label htmlFor={`input-${i}-description`}>Description</label>
                <input id={`input-${i}-description`} type="text" value={v.description} onChange={(e) => updateInput(i, { description: e.target.value })} />
              </div>
              <div className="actions">
                <label className="checkbox">
                  <input type="checkbox" checked={v.required} onChange={(e) => updateInput(i, { required: e.target.checked })} /> Required
                </label>
                <button type="button" className="btn btn-small btn-danger" onClick={() => set("inputVariables", draft.inputVariables.filter((_, j) => j !== i))}>
                  Delete variable
                </button>
              </div>
            </fieldset>
          ))}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => set("inputVariables", [...draft.inputVariables, { slug: "", displayName: "", description: "", required: false }])}
          >
            Add input variable
          </button>
        </Section>

        <Section id="extracted-variables" title="Extracted variables" description="What the analysis extracts from each conversation (callResult.extractedVariables).">
          {draft.extractedVariables.length === 0 && <p className="hint">No extracted variables.</p>}
          {draft.extractedVariables.map((v, i) => (
            <fieldset key={v.id ?? `new-${i}`} className="list-item" aria-label={`Extracted variable ${i + 1}`}>
              <legend className="label-text">Extracted variable {i + 1}</legend>
              <div className="row">
                <div className="field">
                  <label htmlFor={`extracted-${i}-slug`}>Slug</label>
                  <input id={`extracted-${i}-slug`} type="text" value={v.slug} onChange={(e) => updateExtracted(i, { slug: e.target.value })} />
                </div>
                <div className="field">
                  <label htmlFor={`extracted-${i}-name`}>Display name</label>
                  <input id={`extracted-${i}-name`} type="text" value={v.displayName} onChange={(e) => updateExtracted(i, { displayName: e.target.value })} />
                </div>
                <div className="field" style={{ flex: "0 1 180px" }}>
                  <label htmlFor={`extracted-${i}-type`}>Type</label>
                  <select
                    id={`extracted-${i}-type`}
                    value={v.type}
                    onChange={(e) => {
                      const type = e.target.value as ExtractedVariable["type"];
                      updateExtracted(i, {
                        type,
                        dropdownOptions: type === "DROPDOWN" ? (v.dropdownOptions ?? [""]) : null,
                        datetimeFormat: type === "DATE/TIME" ? (v.datetimeFormat ?? "yyyy-MM-dd HH:mm:ss") : null,
                        formatDatetimeInUtc: type === "DATE/TIME" ? (v.formatDatetimeInUtc ?? false) : null,
                      });
                    }}
                  >
                    {EXTRACTED_TYPES.map((t) => (
                      <option key={t} value={t}>
                        {t}
                      </option>
                    ))}
                  </select>
                </div>
              </div>
              <div className="field">
                <label htmlFor={`extracted-${i}-description`}>Description</label>
                <input id={`extracted-${i}-description`} type="text" value={v.description} onChange={(e) => updateExtracted(i, { description: e.target.value })} />
              </div>
              {v.type === "DROPDOWN" && (
                <StringListEditor
                  id={`extracted-${i}-option`}
                  label="Dropdown options"
                  values={v.dropdownOptions ?? []}
                  onChange={(options) => updateExtracted(i, { dropdownOptions: options })}
                  addLabel="Add option"
                />
              )}
              {v.type === "DATE/TIME" && (
                <div className="row">
                  <div className="field">
                    <label htmlFor={`extracted-${i}-format`}>Date/time format</label>
                    <input
                      id={`extracted-${i}-format`}
                      type="text"
                      value={v.datetimeFormat ?? ""}
                      onChange={(e) => updateExtracted(i, { datetimeFormat: e.target.value })}
                      aria-describedby={`extracted-${i}-format-hint`}
                    />
                    <span id={`extracted-${i}-format-hint`} className="hint">
                      Pattern such as yyyy-MM-dd HH:mm:ss.
                    </span>
                  </div>
                  <div className="field">
                    <label className="checkbox">
                      <input type="checkbox" checked={v.formatDatetimeInUtc ?? false} onChange={(e) => updateExtracted(i, { formatDatetimeInUtc: e.target.checked })} />{" "}
                      Format in UTC
                    </label>
                  </div>
                </div>
              )}
              <button type="button" className="btn btn-small btn-danger" onClick={() => set("extractedVariables", draft.extractedVariables.filter((_, j) => j !== i))}>
                Delete variable
              </button>
            </fieldset>
          ))}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => set("extractedVariables", [...draft.extractedVariables, { slug: "", displayName: "", description: "", type: "STRING" }])}
          >
            Add extracted variable
          </button>
          {systemVariables.length > 0 && (
            <p className="hint">
              System variables (not editable, not listed by the API): {systemVariables.map((v) => v.slug).join(", ")}.
            </p>
          )}
        </Section>

        <Section id="outcomes" title="Outcomes" description="Outcome names appear in callResult.outcomes. Disable an outcome instead of deleting it, so past results still map.">
          {draft.outcomes.length === 0 && <p className="hint">No outcomes.</p>}
          {draft.outcomes.map((o, i) => (
            <fieldset key={o.id ?? `new-${i}`} className="list-item" aria-label={`Outcome ${i + 1}`}>
              <legend className="label-text">Outcome {i + 1}</legend>
              <div className="row">
                <div className="field">
                  <label htmlFor={`outcome-${i}-name`}>Name</label>
                  <input id={`outcome-${i}-name`} type="text" value={o.name} onChange={(e) => updateOutcome(i, { name: e.target.value })} />
                </div>
                <div className="field">
                  <label htmlFor={`outcome-${i}-description`}>Description</label>
                  <input id={`outcome-${i}-description`} type="text" value={o.description} onChange={(e) => updateOutcome(i, { description: e.target.value })} />
                </div>
              </div>
              <div className="actions">
                <label className="checkbox">
                  <input type="checkbox" checked={o.enabled} onChange={(e) => updateOutcome(i, { enabled: e.target.checked })} /> Enabled
                </label>
                {!o.id && (
                  <button type="button" className="btn btn-small" onClick={() => set("outcomes", draft.outcomes.filter((_, j) => j !== i))}>
                    Discard new outcome
                  </button>
                )}
              </div>
            </fieldset>
          ))}
          <button type="button" className="btn btn-small" onClick={() => set("outcomes", [...draft.outcomes, { name: "", description: "", enabled: true }])}>
            Add outcome
          </button>
          {systemOutcomes.length > 0 && <p className="hint">System outcomes (not editable): {systemOutcomes.map((o) => o.name).join(", ")}.</p>}
        </Section>

        <Section id="voice-calls" title="Phone calls" description="Used by the real voice engine (Twilio + OpenAI Realtime); the simulator ignores them.">
          <VoiceCallSettings value={draft} onChange={(patch) => setDraft((d) => ({ ...d, ...patch }))} />
        </Section>

        <Section id="booking" title="Meeting booking" description="The agent always books through the configured mode and never falls back to another.">
          <div className="field" style={{ maxWidth: 320 }}>
            <label htmlFor="booking-mode">Booking mode</label>
            <select
              id="booking-mode"
              value={draft.bookingConfig?.mode ?? ""}
              onChange={(e) => {
                const mode = e.target.value as BookingConfig["mode"] | "";
                set("bookingConfig", mode ? { mode, provider: "chili-piper" } : null);
              }}
            >
              <option value="">No booking</option>
              <option value="link">Link-based (scheduling link)</option>
              <option value="crm">CRM-dependent (handoff router)</option>
              <option value="concierge">Concierge (router)</option>
            </select>
          </div>
          {draft.bookingConfig && (
            <div className="row">
              {BOOKING_FIELDS[draft.bookingConfig.mode].map((field) => (
                <div className="field" key={field.key}>
                  <label htmlFor={`booking-${field.key}`}>{field.label}</label>
                  <input
                    id={`booking-${field.key}`}
                    type="text"
                    value={String(draft.bookingConfig?.[field.key] ?? "")}
                    onChange={(e) => set("bookingConfig", { ...draft.bookingConfig!, [field.key]: e.target.value })}
                  />
                </div>
              ))}
            </div>
          )}
        </Section>
      </fieldset>

      {mutation.isError && (
        <div className="alert alert-error" role="alert" data-testid="save-error">
          {errorMessage(mutation.error)}
        </div>
      )}
      {can.admin && (
        <div className="actions" style={{ position: "sticky", bottom: 0, background: "var(--bg)", padding: "12px 0" }}>
          <button type="submit" className="btn btn-primary" disabled={mutation.isPending}>
            {mutation.isPending ? "Saving…" : props.mode === "create" ? "Create agent" : "Save changes"}
          </button>
        </div>
      )}
    </form>
  );
}
