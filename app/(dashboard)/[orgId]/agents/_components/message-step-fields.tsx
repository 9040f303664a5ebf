"use client";

import { Field } from "../../../../_components/ui/field";
import { Input, Textarea } from "../../../../_components/ui/input";
import {
  BUILTIN_TEMPLATE_VARIABLES,
  countSmsSegments,
  MAX_SMS_SEGMENTS,
  renderTemplate,
  sampleTemplateValues,
} from "@/server/services/sequences/message-template";
import { messageChannelOf, STEP_TEMPLATE_FIELDS } from "@/server/services/sequences/step-kinds";
import type { MessageChannel } from "@/db/schema/kinds";
import type { AgentDraft } from "./agent-draft";

type Step = AgentDraft["steps"][number];
export type TemplateContext = { agentName: string; inputVariables: ReadonlyArray<{ slug: string; displayName: string }> };

/** The body field's label, per channel. */
const BODY_LABEL: Record<MessageChannel, string> = { email: "Email body", sms: "Text message" };

/**
 * The templates of an EMAIL or SMS step, with the message rendered for a sample contact (the functions the sender
 * uses, server/services/sequences/message-template.ts) and, for SMS, its segment count.
 */
export function MessageStepFields({ index, step, context, onChange }: { index: number; step: Step; context: TemplateContext; onChange: (patch: Partial<Step>) => void }) {
  const channel = messageChannelOf(step.stepType);
  if (!channel) return null;
  const fields = STEP_TEMPLATE_FIELDS[step.stepType];
  const sample = sampleTemplateValues(context);
  const body = renderTemplate(step.body ?? "", sample);
  const segments = countSmsSegments(body);
  const variables = [...Object.keys(BUILTIN_TEMPLATE_VARIABLES), ...context.inputVariables.map((variable) => variable.slug)].map((name) => `{{${name}}}`).join(" ");
  return (
    <div className="grid grid-cols-1 items-start gap-3 lg:grid-cols-2">
      <div className="flex flex-col gap-3">
        {fields.subject && (
          <Field label="Subject" id={`step-${index}-subject`}>
            <Input value={step.subject ?? ""} onChange={(e) => onChange({ subject: e.target.value })} />
          </Field>
        )}
        <Field label={BODY_LABEL[channel]} id={`step-${index}-body`} hint={`Variables: ${variables}`}>
          <Textarea value={step.body ?? ""} onChange={(e) => onChange({ body: e.target.value })} />
        </Field>
      </div>
      <section aria-label={`Step ${index + 1} preview`} className="rounded border border-border bg-muted p-3 text-sm">
        <p className="mb-1 text-xs font-semibold text-muted-foreground">Preview for a sample contact ({sample.name})</p>
        {fields.subject && <p className="font-semibold">{renderTemplate(step.subject ?? "", sample)}</p>}
        <p className="whitespace-pre-wrap">{body || "—"}</p>
        {step.stepType === "SMS" && (
          <p className={segments.segments > MAX_SMS_SEGMENTS ? "mt-2 text-red-700" : "mt-2 text-muted-foreground"} data-testid={`step-${index}-segments`}>
            {segments.units} characters ({segments.encoding}), {segments.segments} of at most {MAX_SMS_SEGMENTS} segments
          </p>
        )}
      </section>
    </div>
  );
}
