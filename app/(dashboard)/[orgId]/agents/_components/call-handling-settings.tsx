"use client";

import {
  MAX_TRANSFER_TARGETS,
  PHONE_MENU_GOAL_MAX_LENGTH,
  TRANSFER_ANSWER_TIMEOUT_SECONDS,
  TRANSFER_HOURS_MAX_LENGTH,
  TRANSFER_LABEL_MAX_LENGTH,
  TRANSFER_WHEN_TO_USE_MAX_LENGTH,
} from "@/server/voice/transfer-settings";
import { Button } from "../../../../_components/ui/button";
import { CheckboxField } from "../../../../_components/ui/checkbox";
import { Field } from "../../../../_components/ui/field";
import { Input, NativeSelect } from "../../../../_components/ui/input";
import type { AgentDraft } from "./agent-draft";

type Fields = Pick<AgentDraft, "transferConfig" | "phoneMenuGoal">;
type Config = NonNullable<AgentDraft["transferConfig"]>;

const NEW_CONFIG: Config = {
  mode: "warm",
  targets: [{ label: "", destination: "", whenToUse: "" }],
  answerTimeoutSeconds: 20,
  hours: null,
  timezone: null,
  fallback: "callback",
};

/**
 * Handing a call to a person (targets, cold or warm, hours, the fallback) and the goal in phone menus. The server checks
 * the rules (docs/call-engine.md "Transfers") and names the field of any it refuses.
 */
export function CallHandlingSettings({ value, onChange }: { value: Fields; onChange: (patch: Partial<Fields>) => void }) {
  const config = value.transferConfig ?? null;
  const update = (patch: Partial<Config>) => onChange({ transferConfig: { ...(config ?? NEW_CONFIG), ...patch } });
  const targets = config?.targets ?? [];
  const setTarget = (index: number, patch: Partial<Config["targets"][number]>) => update({ targets: targets.map((target, i) => (i === index ? { ...target, ...patch } : target)) });
  return (
    <div className="flex flex-col gap-4">
      <CheckboxField
        label="Hand calls to a person"
        hint="The agent may transfer a call when the contact asks for someone, to one of the targets below."
        checked={config !== null}
        onCheckedChange={(checked) => onChange({ transferConfig: checked ? NEW_CONFIG : null })}
      />
      {config && (
        <>
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
            <Field label="Mode" id="transfer-mode" hint="Warm: the contact waits on hold; the person hears a summary first.">
              <NativeSelect value={config.mode} onChange={(e) => update({ mode: e.target.value as Config["mode"] })}>
                <option value="warm">Warm</option>
                <option value="cold">Cold</option>
              </NativeSelect>
            </Field>
            <Field label="Ring time (seconds)" id="transfer-timeout" hint="Then the agent comes back to the contact.">
              <Input
                type="number"
                min={TRANSFER_ANSWER_TIMEOUT_SECONDS.min}
                max={TRANSFER_ANSWER_TIMEOUT_SECONDS.max}
                value={config.answerTimeoutSeconds ?? ""}
                onChange={(e) => update({ answerTimeoutSeconds: e.target.value.trim() === "" ? null : Number(e.target.value) })}
              />
            </Field>
            <Field label="When nobody can take the call" id="transfer-fallback">
              <NativeSelect value={config.fallback} onChange={(e) => update({ fallback: e.target.value as Config["fallback"] })}>
                <option value="callback">Offer a call back</option>
                <option value="book_meeting">Offer a meeting</option>
                <option value="take_message">Take a message</option>
              </NativeSelect>
            </Field>
          </div>
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
            <Field label="Hours" id="transfer-hours" hint="E.g. Mon-Fri 09:00-17:00; Sat 10:00-13:00. Empty: always.">
              <Input value={config.hours ?? ""} maxLength={TRANSFER_HOURS_MAX_LENGTH} onChange={(e) => update({ hours: e.target.value || null })} />
            </Field>
            <Field label="Hours' timezone" id="transfer-timezone" hint="Empty: the agent's first timezone.">
              <Input value={config.timezone ?? ""} onChange={(e) => update({ timezone: e.target.value || null })} placeholder="America/New_York" />
            </Field>
          </div>
          <ul className="flex flex-col gap-3" aria-label="Transfer targets">
            {targets.map((target, index) => (
              <li key={index} className="grid grid-cols-1 gap-2 rounded-md border border-border p-3 sm:grid-cols-[1fr_1.4fr_2fr_auto] sm:items-end">
                <Field label="Label" id={`transfer-label-${index}`}>
                  <Input value={target.label} maxLength={TRANSFER_LABEL_MAX_LENGTH} onChange={(e) => setTarget(index, { label: e.target.value })} placeholder="sales" />
                </Field>
                <Field label="Number or SIP URI" id={`transfer-destination-${index}`}>
                  <Input value={target.destination} onChange={(e) => setTarget(index, { destination: e.target.value })} placeholder="+14155550100" />
                </Field>
                <Field label="When to use" id={`transfer-when-${index}`}>
                  <Input value={target.whenToUse} maxLength={TRANSFER_WHEN_TO_USE_MAX_LENGTH} onChange={(e) => setTarget(index, { whenToUse: e.target.value })} placeholder="pricing questions" />
                </Field>
                <Button size="sm" variant="ghost" onClick={() => update({ targets: targets.filter((_, i) => i !== index) })} aria-label={`Remove transfer target ${index + 1}`}>
                  Remove
                </Button>
              </li>
            ))}
          </ul>
          {targets.length < MAX_TRANSFER_TARGETS && (
            <div>
              <Button size="sm" onClick={() => update({ targets: [...targets, { label: "", destination: "", whenToUse: "" }] })}>
                Add a target
              </Button>
            </div>
          )}
        </>
      )}
      <Field label="In phone menus, head for" id="phone-menu-goal" hint="The agent presses the keys that lead there (empty: a person).">
        <Input value={value.phoneMenuGoal ?? ""} maxLength={PHONE_MENU_GOAL_MAX_LENGTH} onChange={(e) => onChange({ phoneMenuGoal: e.target.value || null })} placeholder="the sales team" />
      </Field>
    </div>
  );
}
