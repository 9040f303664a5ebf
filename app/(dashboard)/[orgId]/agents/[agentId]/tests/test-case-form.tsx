"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { TConsoleAgent } from "@/server/schemas/agent-config";
import type { TTestCaseInput } from "@/server/schemas/agent-tests";
import { useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../../../_components/ui/alert";
import { Button } from "../../../../../_components/ui/button";
import { CheckboxField } from "../../../../../_components/ui/checkbox";
import { Field, FieldRow } from "../../../../../_components/ui/field";
import { formErrors, type IssuePlace } from "../../../../../_components/ui/form-errors";
import { Input, NativeSelect, Textarea } from "../../../../../_components/ui/input";

type Expectations = TTestCaseInput["expectations"];
type MatchType = "exact" | "oneOf" | "regex" | "judge";
type VariableCheck = { slug: string; type: MatchType; value: string };
const TOOLS = ["book_meeting", "opt_out", "end_call"] as const;
type ToolRule = "either" | "called" | "not-called";

/** The result types a conversation can be analysed as (docs/agent-testing.md; the rest are a dial's, not a conversation's). */
const CONVERSATION_RESULT_TYPES = ["Goal Completed", "Goal Not Completed", "Voicemail", "No Conversation", "Opted Out"];

const MATCH_LABELS: Record<MatchType, { label: string; hint: string }> = {
  exact: { label: "is", hint: "Ignoring case and surrounding space. Empty: not extracted." },
  oneOf: { label: "is one of", hint: "Comma-separated." },
  regex: { label: "matches the pattern", hint: "A JavaScript regular expression." },
  judge: { label: "satisfies (judged by an LLM)", hint: "What the value must satisfy, in words." },
};

type Draft = {
  name: string;
  persona: string;
  contactName: string;
  email: string;
  variables: Record<string, string>;
  resultType: string;
  outcomes: string[];
  checks: VariableCheck[];
  tools: Record<(typeof TOOLS)[number], ToolRule>;
  meetingBooked: "either" | "yes" | "no";
  maxTurns: string;
};

const emptyDraft = (agent: TConsoleAgent): Draft => ({
  name: "",
  persona: "",
  contactName: "",
  email: "",
  variables: Object.fromEntries(agent.inputVariables.map((variable) => [variable.slug, ""])),
  resultType: "Goal Completed",
  outcomes: [],
  checks: [],
  tools: { book_meeting: "either", opt_out: "either", end_call: "either" },
  meetingBooked: "either",
  maxTurns: "",
});

function matcherOf(check: VariableCheck): NonNullable<Expectations["extractedVariables"]>[number]["match"] {
  switch (check.type) {
    case "exact":
      return { type: "exact", value: check.value.trim() === "" ? null : check.value };
    case "oneOf":
      return { type: "oneOf", values: check.value.split(",").map((value) => value.trim()).filter(Boolean) };
    case "regex":
      return { type: "regex", pattern: check.value };
    case "judge":
      return { type: "judge", rubric: check.value };
  }
}

/** The expectations as the API takes them (`POST /agents/{agentId}/tests`): only what the form sets. */
function expectationsOf(draft: Draft): Expectations {
  const called = TOOLS.filter((tool) => draft.tools[tool] === "called");
  const notCalled = TOOLS.filter((tool) => draft.tools[tool] === "not-called");
  const maxTurns = Number(draft.maxTurns);
  return {
    ...(draft.resultType ? { resultType: draft.resultType } : {}),
    ...(draft.outcomes.length ? { outcomes: draft.outcomes } : {}),
    ...(draft.checks.length ? { extractedVariables: draft.checks.map((check) => ({ slug: check.slug, match: matcherOf(check) })) } : {}),
    ...(called.length ? { toolsCalled: called } : {}),
    ...(notCalled.length ? { toolsNotCalled: notCalled } : {}),
    ...(draft.meetingBooked !== "either" ? { meetingBooked: draft.meetingBooked === "yes" } : {}),
    ...(draft.maxTurns.trim() && Number.isFinite(maxTurns) ? { maxTurns } : {}),
  };
}

/** Where the server's field issues go in this form: `expectations.extractedVariables.0.match.pattern` under that check's value. */
function placeIssue(path: readonly string[]): IssuePlace<string> | null {
  const [first, second, third, fourth] = path;
  if (first === "name" || first === "persona") return { field: first };
  if (first === "contact" && second === "name") return { field: "contactName" };
  if (first === "contact" && second === "email") return { field: "email" };
  if (first === "inputVariables" && second) return { field: `variable:${second}` };
  if (first === "expectations" && second === "extractedVariables" && third !== undefined) return { field: fourth === "slug" ? `check:${third}:slug` : `check:${third}:value` };
  if (first === "expectations" && (second === "resultType" || second === "maxTurns" || second === "meetingBooked")) return { field: second };
  return null;
}

/**
 * A new test case: the caller, the agent's input variables, and each expectation as a control (the agent's outcomes
 * and extraction variables to choose from). What is sent is shown as the API's JSON, for integrators writing cases
 * in code. The server validates it (docs/agent-testing.md): a refused field's message is shown under that field.
 */
export function NewTestCaseForm({ agent }: { agent: TConsoleAgent }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => emptyDraft(agent));
  const outcomes = agent.outcomes.filter((outcome) => outcome.enabled);
  const variables = agent.extractedVariables;
  const create = useMutation(
    trpc.agentTests.createTestCase.mutationOptions({
      onSuccess: () => {
        setDraft(emptyDraft(agent));
        void queryClient.invalidateQueries({ queryKey: trpc.agentTests.listTestCases.queryKey({ agentId: agent.agentId }) });
      },
    }),
  );
  /** A change answers the last refusal: its message goes until the next submit. */
  const set = (patch: Partial<Draft>) => {
    if (create.isError) create.reset();
    setDraft((current) => ({ ...current, ...patch }));
  };
  const expectations = expectationsOf(draft);
  const errors = formErrors(create.error, placeIssue);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const inputVariables = Object.fromEntries(Object.entries(draft.variables).filter(([, value]) => value.trim() !== ""));
    const contact = draft.contactName || draft.email ? { ...(draft.contactName ? { name: draft.contactName } : {}), ...(draft.email ? { email: draft.email } : {}) } : undefined;
    create.mutate({ agentId: agent.agentId, name: draft.name, persona: draft.persona, contact, inputVariables, expectations });
  }
  const setCheck = (index: number, patch: Partial<VariableCheck>) => set({ checks: draft.checks.map((check, at) => (at === index ? { ...check, ...patch } : check)) });

  return (
    <form onSubmit={onSubmit} aria-label="New test case" className="mt-3 flex flex-col gap-3 rounded border border-border p-3">
      <FieldRow>
        <Field label="Name" id="test-case-name" error={errors.fields.name}>
          <Input required value={draft.name} onChange={(e) => set({ name: e.target.value })} />
        </Field>
        <Field label="Caller name" id="test-case-contact-name" hint="Default: Test Caller." error={errors.fields.contactName}>
          <Input value={draft.contactName} onChange={(e) => set({ contactName: e.target.value })} />
        </Field>
        <Field label="Caller email" id="test-case-email" hint="For book_meeting." error={errors.fields.email}>
          <Input type="email" value={draft.email} onChange={(e) => set({ email: e.target.value })} />
        </Field>
      </FieldRow>
      <Field
        label="Caller persona"
        id="test-case-persona"
        hint="Who the simulated caller is, what they want, how they behave. `key: value` lines are facts they answer with."
        error={errors.fields.persona}
      >
        <Textarea required rows={3} value={draft.persona} onChange={(e) => set({ persona: e.target.value })} />
      </Field>
      {agent.inputVariables.length > 0 && (
        <FieldRow>
          {agent.inputVariables.map((variable) => (
            <Field
              key={variable.slug}
              label={variable.displayName || variable.slug}
              id={`test-case-variable-${variable.slug}`}
              hint={variable.required ? "Required at enrollment." : undefined}
              error={errors.fields[`variable:${variable.slug}`]}
            >
              <Input value={draft.variables[variable.slug] ?? ""} onChange={(e) => set({ variables: { ...draft.variables, [variable.slug]: e.target.value } })} />
            </Field>
          ))}
        </FieldRow>
      )}

      <fieldset className="flex flex-col gap-3 rounded border border-border p-3">
        <legend className="px-1 text-sm font-bold">Expectations</legend>
        <FieldRow>
          <Field label="Result type" id="test-case-result-type" error={errors.fields.resultType}>
            <NativeSelect value={draft.resultType} onChange={(e) => set({ resultType: e.target.value })}>
              <option value="">Any</option>
              {CONVERSATION_RESULT_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <Field label="Calendar slot booked" id="test-case-meeting-booked" hint="book_meeting got a slot from the calendar (test mode books nothing)." error={errors.fields.meetingBooked}>
            <NativeSelect value={draft.meetingBooked} onChange={(e) => set({ meetingBooked: e.target.value as Draft["meetingBooked"] })}>
              <option value="either">Either</option>
              <option value="yes">A slot was booked</option>
              <option value="no">No slot was booked</option>
            </NativeSelect>
          </Field>
          <Field label="At most this many turns" id="test-case-max-turns" hint="Agent and caller lines together. Empty: no limit." error={errors.fields.maxTurns}>
            <Input type="number" min={1} step={1} value={draft.maxTurns} onChange={(e) => set({ maxTurns: e.target.value })} />
          </Field>
        </FieldRow>
        <FieldRow>
          {TOOLS.map((tool) => (
            <Field key={tool} label={`Tool ${tool}`} id={`test-case-tool-${tool}`}>
              <NativeSelect value={draft.tools[tool]} onChange={(e) => set({ tools: { ...draft.tools, [tool]: e.target.value as ToolRule } })}>
                <option value="either">Either</option>
                <option value="called">Must be called</option>
                <option value="not-called">Must not be called</option>
              </NativeSelect>
            </Field>
          ))}
        </FieldRow>
        {outcomes.length > 0 && (
          <div role="group" aria-label="Outcomes the result must carry" className="flex flex-col gap-1">
            <span className="text-sm font-semibold">Outcomes the result must carry</span>
            <div className="flex flex-wrap gap-x-4 gap-y-1">
              {outcomes.map((outcome) => (
                <CheckboxField
                  key={outcome.id}
                  label={outcome.name}
                  checked={draft.outcomes.includes(outcome.name)}
                  onCheckedChange={(checked) => set({ outcomes: checked ? [...draft.outcomes, outcome.name] : draft.outcomes.filter((name) => name !== outcome.name) })}
                />
              ))}
            </div>
          </div>
        )}
        <div role="group" aria-label="Extracted values" className="flex flex-col gap-2">
          <span className="text-sm font-semibold">Extracted values</span>
          {draft.checks.map((check, index) => (
            <div key={index} className="flex flex-wrap items-end gap-2" data-testid="test-case-variable-check">
              <Field label="Variable" id={`test-case-check-${index}-slug`} error={errors.fields[`check:${index}:slug`]}>
                <NativeSelect value={check.slug} onChange={(e) => setCheck(index, { slug: e.target.value })}>
                  {variables.map((variable) => (
                    <option key={variable.slug} value={variable.slug}>
                      {variable.displayName || variable.slug}
                    </option>
                  ))}
                </NativeSelect>
              </Field>
              <Field label="Check" id={`test-case-check-${index}-type`}>
                <NativeSelect value={check.type} onChange={(e) => setCheck(index, { type: e.target.value as MatchType })}>
                  {(Object.keys(MATCH_LABELS) as MatchType[]).map((type) => (
                    <option key={type} value={type}>
                      {MATCH_LABELS[type].label}
                    </option>
                  ))}
                </NativeSelect>
              </Field>
              <Field
                label="Value"
                id={`test-case-check-${index}-value`}
                hint={MATCH_LABELS[check.type].hint}
                error={errors.fields[`check:${index}:value`]}
                className="min-w-48 flex-1"
              >
                <Input value={check.value} onChange={(e) => setCheck(index, { value: e.target.value })} />
              </Field>
              <Button type="button" variant="link" size="sm" onClick={() => set({ checks: draft.checks.filter((_, at) => at !== index) })}>
                Remove
              </Button>
            </div>
          ))}
          {variables.length > 0 ? (
            <div>
              <Button type="button" size="sm" onClick={() => set({ checks: [...draft.checks, { slug: variables[0]!.slug, type: "exact", value: "" }] })}>
                Add a value check
              </Button>
            </div>
          ) : (
            <p className="text-sm text-muted-foreground">The agent extracts no variables.</p>
          )}
        </div>
        <details>
          <summary className="text-sm">As the API takes it</summary>
          <pre tabIndex={0} aria-label="Expectations as JSON" className="mt-1 overflow-x-auto rounded bg-muted p-2 text-xs" data-testid="test-case-expectations-json">
            {JSON.stringify(expectations, null, 2)}
          </pre>
        </details>
      </fieldset>
      <div>
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add test case"}
        </Button>
      </div>
      {errors.message && <Alert tone="error">{errors.message}</Alert>}
    </form>
  );
}
