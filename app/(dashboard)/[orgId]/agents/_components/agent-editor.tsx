"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrgPath } from "../../../../_components/org-context";
import { Alert } from "../../../../_components/ui/alert";
import { Button } from "../../../../_components/ui/button";
import { Section } from "../../../../_components/ui/card";
import { formErrors, type IssuePlace } from "../../../../_components/ui/form-errors";
import { StickySaveBar } from "../../../../_components/ui/sticky-save-bar";
import type { AgentDraft, AgentView } from "./agent-draft";
import { BookingFields, ExtractedVariablesFields, GeneralFields, InputVariablesFields, OutcomesFields, PromptFields } from "./editor-sections";
import { CheckboxField } from "../../../../_components/ui/checkbox";
import { StepsEditor } from "./steps-editor";
import { CallHandlingSettings } from "./call-handling-settings";
import { VoiceCallSettings } from "./voice-call-settings";
import { DisclosureSettings } from "./disclosure-settings";

const SECTIONS = [
  { id: "general", title: "General" },
  { id: "prompt", title: "Prompt" },
  { id: "steps", title: "Sequence steps" },
  { id: "input-variables", title: "Input variables" },
  { id: "extracted-variables", title: "Extracted variables" },
  { id: "outcomes", title: "Outcomes" },
  { id: "voice-calls", title: "Phone calls" },
  { id: "transfers", title: "Transfers and phone menus" },
  { id: "disclosures", title: "Disclosures" },
  { id: "booking", title: "Meeting booking" },
] as const;

/** Where each top-level setting is edited, to name the place of a refusal that has no control of its own on screen. */
const SECTION_OF: Record<string, (typeof SECTIONS)[number]["title"]> = {
  replyEndsSequence: "Sequence steps",
  voicemailMessage: "Phone calls",
  ringTimeoutSeconds: "Phone calls",
  maxCallSeconds: "Phone calls",
  voice: "Phone calls",
  greetingMode: "Phone calls",
  callPurpose: "Phone calls",
  answeredByActions: "Phone calls",
  answerMoves: "Phone calls",
  transferConfig: "Transfers and phone menus",
  phoneMenuGoal: "Transfers and phone menus",
  disclosureIdentification: "Disclosures",
  disclosureRecordingNotice: "Disclosures",
  recordingNoticeMode: "Disclosures",
  bookingConfig: "Meeting booking",
};
const ITEM_OF: Record<string, string> = { steps: "Sequence steps: step", inputVariables: "Input variables: variable", extractedVariables: "Extracted variables: variable", outcomes: "Outcomes: outcome" };

/**
 * Places a refusal of the agent document (`timezones.1`, `steps.2.body`): beside its control for the name, status,
 * prompt, timezones and numbers (the list is sent without its empty boxes, so index 1 is the second box filled in),
 * else named by its section and item ("Sequence steps: step 3").
 */
function placeAgentIssue(draft: AgentDraft) {
  const boxOf = (values: string[], sent: number) => values.flatMap((value, index) => (value.trim() ? [index] : []))[sent];
  return (path: readonly string[]): IssuePlace<string> | null => {
    const [key = "", item] = path;
    if (key === "name" || key === "status" || key === "prompt") return { field: key };
    if (key === "timezones" || key === "phoneNumbers") {
      const box = item === undefined ? undefined : boxOf(draft[key], Number(item));
      return { field: box === undefined ? key : `${key}.${box}` };
    }
    if (ITEM_OF[key] && item !== undefined && /^\d+$/.test(item)) return { label: `${ITEM_OF[key]} ${Number(item) + 1}` };
    const section = SECTION_OF[key] ?? SECTIONS.find((candidate) => candidate.id === key)?.title;
    return section ? { label: section } : null;
  };
}

type Props = { mode: "create" } | { mode: "edit"; view: AgentView; onSaved: (message: string) => void };

/**
 * The agent's whole configuration as one document, in sections with a list of them to jump to, and a save bar that
 * stays at the bottom of the screen and says when there are unsaved changes.
 */
export function AgentEditor(props: Props & { initial: AgentDraft }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const path = useOrgPath();
  const can = useCan();
  const [draft, setDraft] = useState<AgentDraft>(props.initial);
  const dirty = useMemo(() => JSON.stringify(draft) !== JSON.stringify(props.initial), [draft, props.initial]);
  const timezoneOptions = useMemo(() => (typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : []), []);
  const set = <K extends keyof AgentDraft>(key: K, value: AgentDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));

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
        const message = result.promptChanged ? "Saved. The prompt is now a new version, used by the next calls." : "Saved.";
        if (props.mode === "edit") props.onSaved(message);
        await queryClient.invalidateQueries({ queryKey: trpc.agents.pathKey() });
      },
    }),
  );
  const mutation = props.mode === "create" ? create : update;
  const errors = formErrors(mutation.error, placeAgentIssue(draft));

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const payload: AgentDraft = { ...draft, phoneNumbers: draft.phoneNumbers.filter((p) => p.trim()), timezones: draft.timezones.filter((t) => t.trim()) };
    if (props.mode === "create") create.mutate(payload);
    else update.mutate({ ...payload, agentId: props.view.agentId });
  }

  const view = props.mode === "edit" ? props.view : null;
  const sectionProps = (id: (typeof SECTIONS)[number]["id"]) => ({ id: `section-${id}`, title: SECTIONS.find((s) => s.id === id)!.title, className: "scroll-mt-20" });

  return (
    <form onSubmit={onSubmit} noValidate aria-label={props.mode === "create" ? "New agent" : "Agent configuration"}>
      <datalist id="timezone-options">
        {timezoneOptions.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
      {!can.admin && (
        <Alert tone="warning" role="note" className="mb-4">
          You can read this configuration; only admins can change it.
        </Alert>
      )}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[11rem_minmax(0,1fr)]">
        <nav aria-label="Sections of the agent" className="max-lg:hidden">
          <ul className="sticky top-4 flex flex-col gap-0.5 text-sm">
            {SECTIONS.map((section) => (
              <li key={section.id}>
                <a href={`#section-${section.id}`} className="block rounded px-2 py-1.5 text-foreground no-underline hover:bg-muted">
                  {section.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <fieldset disabled={!can.admin || mutation.isPending} className="flex min-w-0 flex-col gap-4 border-0 p-0">
          <Section {...sectionProps("general")}>
            <GeneralFields draft={draft} set={set} errors={errors.fields} />
          </Section>
          <Section {...sectionProps("prompt")} description="Each save that changes the prompt starts a new version; every call records the version it used.">
            <PromptFields prompt={draft.prompt} onChange={(prompt) => set("prompt", prompt)} versions={view?.promptVersions ?? []} error={errors.fields.prompt} />
          </Section>
          <Section {...sectionProps("steps")} description="Each step waits its delay after the previous one ended, then runs inside its calling window.">
            <StepsEditor
              steps={draft.steps}
              agentZone={draft.timezones[0]}
              templateContext={{ agentName: draft.name, inputVariables: draft.inputVariables }}
              onChange={(steps) => set("steps", steps)}
            />
            {draft.steps.some((step) => step.stepType === "SMS") && (
              <CheckboxField
                id="reply-ends-sequence"
                className="mt-3"
                label="A reply ends the sequence"
                hint="Any SMS reply from the contact (other than STOP, START or HELP, which are always handled) ends their sequence as done: the steps left are skipped."
                checked={draft.replyEndsSequence ?? false}
                onCheckedChange={(checked) => set("replyEndsSequence", checked === true)}
              />
            )}
          </Section>
          <Section
            {...sectionProps("input-variables")}
            description="Values sent when a contact is enrolled. Required ones must be present; a removed one is hidden from the API but kept on past calls."
          >
            <InputVariablesFields variables={draft.inputVariables} onChange={(v) => set("inputVariables", v)} />
          </Section>
          <Section {...sectionProps("extracted-variables")} description="What the analysis picks out of each conversation and sends with the call's result.">
            <ExtractedVariablesFields
              variables={draft.extractedVariables}
              onChange={(v) => set("extractedVariables", v)}
              systemSlugs={view ? view.extractedVariables.filter((v) => v.systemDefault).map((v) => v.slug) : []}
            />
          </Section>
          <Section {...sectionProps("outcomes")} description="Outcomes appear in each call's result. Disable an outcome instead of deleting it, so past results still make sense.">
            <OutcomesFields
              outcomes={draft.outcomes}
              onChange={(o) => set("outcomes", o)}
              systemNames={view ? view.outcomes.filter((o) => !o.customerDefined).map((o) => o.name) : []}
            />
          </Section>
          <Section {...sectionProps("voice-calls")} description="Used on real phone calls; the demo simulator ignores them.">
            <VoiceCallSettings value={draft} onChange={(patch) => setDraft((d) => ({ ...d, ...patch }))} />
          </Section>
          <Section {...sectionProps("transfers")} description="Used on real phone calls and by the demo simulator (its digit-1 contacts ask for a person).">
            <CallHandlingSettings value={draft} onChange={(patch) => setDraft((d) => ({ ...d, ...patch }))} />
          </Section>
          <Section {...sectionProps("disclosures")} description="Who is calling and that the call is recorded: said first on every connected call, exactly as written.">
            <DisclosureSettings value={draft} onChange={(patch) => setDraft((d) => ({ ...d, ...patch }))} />
          </Section>
          <Section {...sectionProps("booking")} description="The agent always books through the chosen mode and never falls back to another.">
            <BookingFields config={draft.bookingConfig} onChange={(config) => set("bookingConfig", config)} />
          </Section>
        </fieldset>
      </div>
      {errors.message && (
        <Alert tone="error" className="mt-4" data-testid="save-error">
          {errors.message}
        </Alert>
      )}
      {can.admin && (
        <StickySaveBar status={mutation.isPending ? "Saving…" : dirty ? "You have unsaved changes." : props.mode === "create" ? "Fill in the agent, then create it." : "All changes saved."}>
          {props.mode === "edit" && (
            <Button disabled={!dirty || mutation.isPending} onClick={() => setDraft(props.initial)}>
              Discard changes
            </Button>
          )}
          <Button type="submit" variant="primary" disabled={mutation.isPending}>
            {mutation.isPending ? "Saving…" : props.mode === "create" ? "Create agent" : "Save changes"}
          </Button>
        </StickySaveBar>
      )}
    </form>
  );
}
