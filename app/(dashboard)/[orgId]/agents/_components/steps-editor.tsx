"use client";

import { Button } from "../../../../_components/ui/button";
import { CheckboxField } from "../../../../_components/ui/checkbox";
import { Field } from "../../../../_components/ui/field";
import { formatTimeWindow } from "../../../../_components/ui/format";
import { Input, NativeSelect } from "../../../../_components/ui/input";
import { useIsClient, viewerTimezone } from "../../../../_components/ui/time";
import { stepTypes, type StepType } from "@/db/schema/kinds";
import type { AgentDraft } from "./agent-draft";
import { MessageStepFields, type TemplateContext } from "./message-step-fields";
import { clockToMinutes, formatInZone, instantInZone, isValidZone, minutesToClock } from "./time-window";

type Step = AgentDraft["steps"][number];

/** The type select's options, one per step type (db/schema/kinds.ts). */
const STEP_TYPE_OPTIONS: Record<StepType, string> = {
  CALL: "Call",
  EMAIL: "Email (needs the contact's email)",
  SMS: "Text message (SMS)",
};
const UNITS = [
  { label: "minutes", seconds: 60 },
  { label: "hours", seconds: 3600 },
  { label: "days", seconds: 86_400 },
] as const;

function bestUnit(seconds: number) {
  return [...UNITS].reverse().find((u) => seconds % u.seconds === 0) ?? UNITS[0];
}

export const NEW_STEP: Step = {
  stepType: "CALL",
  delaySeconds: 86_400,
  delaySecondsMax: null,
  executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 540, endTime: 1020 }, timezoneSource: "contact" },
};

function DurationInput({ id, label, seconds, onChange }: { id: string; label: string; seconds: number; onChange: (seconds: number) => void }) {
  const unit = bestUnit(seconds);
  return (
    <Field label={label} id={id}>
      <div className="flex gap-1.5">
        <Input
          id={id}
          type="number"
          min={0}
          className="min-w-0 flex-1"
          value={seconds / unit.seconds}
          onChange={(e) => onChange(Math.max(0, Math.round(Number(e.target.value) * unit.seconds)))}
        />
        <NativeSelect aria-label={`${label} unit`} id={`${id}-unit`} className="w-auto" value={unit.seconds} onChange={(e) => onChange((seconds / unit.seconds) * Number(e.target.value))}>
          {UNITS.map((u) => (
            <option key={u.label} value={u.seconds}>
              {u.label}
            </option>
          ))}
        </NativeSelect>
      </div>
    </Field>
  );
}

/** Where the window lands for the viewer: the hours in the chosen timezone, converted for today. */
function WindowPreview({ step, agentZone }: { step: Step; agentZone: string | undefined }) {
  const isClient = useIsClient();
  const { startTime, endTime } = step.executionWindowConfig.timeWindow;
  const left = (startTime / 1440) * 100;
  const width = (Math.max(0, endTime - startTime) / 1440) * 100;
  const zone = agentZone && isValidZone(agentZone) ? agentZone : undefined;
  const source = step.executionWindowConfig.timezoneSource;
  const allDay = formatTimeWindow(startTime, endTime) === "All day";
  return (
    <div>
      <div className="relative mt-1.5 h-5.5 rounded border border-border bg-muted" aria-hidden="true">
        {/* Position and width follow the window being edited: the one truly dynamic style of the editor. */}
        <div className="absolute inset-y-0 border-x-2 border-primary bg-blue-300" style={{ left: `${left}%`, width: `${width}%` }} />
      </div>
      <div className="flex justify-between text-xs text-muted-foreground" aria-hidden="true">
        <span>00:00</span>
        <span>06:00</span>
        <span>12:00</span>
        <span>18:00</span>
        <span>24:00</span>
      </div>
      <p className="mt-1 text-sm text-muted-foreground">
        {allDay ? (
          <>Calls at any hour (all day)</>
        ) : (
          <>
            Calls between <strong>{minutesToClock(startTime)}</strong> and <strong>{minutesToClock(endTime)}</strong>
          </>
        )}{" "}
        {source === "contact" ? "in each contact's own timezone" : `in ${zone ?? "the agent's first timezone"}`}
        {isClient && zone && !allDay && (
          <>
            {" "}— {source === "contact" ? `for a contact in ${zone}, ` : ""}today that is {formatInZone(instantInZone(zone, startTime), undefined)} to{" "}
            {formatInZone(instantInZone(zone, endTime), undefined)} in your timezone ({viewerTimezone()})
          </>
        )}
        .
      </p>
    </div>
  );
}

export function StepsEditor({
  steps,
  agentZone,
  templateContext,
  onChange,
}: {
  steps: Step[];
  agentZone: string | undefined;
  templateContext: TemplateContext;
  onChange: (steps: Step[]) => void;
}) {
  const update = (i: number, patch: (step: Step) => Step) => onChange(steps.map((s, j) => (j === i ? patch(s) : s)));
  return (
    <div className="flex flex-col gap-3">
      {steps.map((step, i) => {
        const window = step.executionWindowConfig;
        const setWindow = (patch: Partial<Step["executionWindowConfig"]>) => update(i, (s) => ({ ...s, executionWindowConfig: { ...s.executionWindowConfig, ...patch } }));
        return (
          <fieldset key={i} className="flex min-w-0 flex-col gap-3 rounded-lg border border-border p-3" aria-label={`Step ${i + 1}`}>
            <legend className="px-1 text-sm font-semibold">Step {i + 1}</legend>
            <div className="grid grid-cols-1 items-start gap-3 sm:grid-cols-2 lg:grid-cols-3">
              <Field label="Type" id={`step-${i}-type`}>
                <NativeSelect value={step.stepType} onChange={(e) => update(i, (s) => ({ ...s, stepType: e.target.value as Step["stepType"] }))}>
                  {stepTypes.map((stepType) => (
                    <option key={stepType} value={stepType}>
                      {STEP_TYPE_OPTIONS[stepType]}
                    </option>
                  ))}
                </NativeSelect>
              </Field>
              <DurationInput
                id={`step-${i}-delay`}
                label={i === 0 ? "Delay after enrollment" : "Delay after the previous step"}
                seconds={step.delaySeconds}
                onChange={(delaySeconds) => update(i, (s) => ({ ...s, delaySeconds }))}
              />
              <div className="flex flex-col gap-2">
                <CheckboxField
                  id={`step-${i}-jitter`}
                  label="Random jitter"
                  className="sm:mt-7"
                  checked={step.delaySecondsMax !== null}
                  onCheckedChange={(checked) => update(i, (s) => ({ ...s, delaySecondsMax: checked === true ? s.delaySeconds + 3600 : null }))}
                />
                {step.delaySecondsMax !== null && (
                  <DurationInput id={`step-${i}-delay-max`} label="Up to" seconds={step.delaySecondsMax} onChange={(delaySecondsMax) => update(i, (s) => ({ ...s, delaySecondsMax }))} />
                )}
              </div>
            </div>
            <div className="grid grid-cols-1 items-start gap-3 sm:grid-cols-2 lg:grid-cols-4">
              <Field label="Window start" id={`step-${i}-start`}>
                <Input
                  type="time"
                  step={900}
                  value={minutesToClock(window.timeWindow.startTime)}
                  onChange={(e) => {
                    const minutes = clockToMinutes(e.target.value);
                    if (minutes !== null) setWindow({ timeWindow: { ...window.timeWindow, startTime: minutes } });
                  }}
                />
              </Field>
              <Field label="Window end" id={`step-${i}-end`} hint="00:00 as the end means midnight (end of day).">
                <Input
                  type="time"
                  step={900}
                  value={window.timeWindow.endTime === 1440 ? "00:00" : minutesToClock(window.timeWindow.endTime)}
                  onChange={(e) => {
                    const minutes = clockToMinutes(e.target.value);
                    if (minutes !== null) setWindow({ timeWindow: { ...window.timeWindow, endTime: minutes === 0 ? 1440 : minutes } });
                  }}
                />
              </Field>
              <Field label="Window timezone" id={`step-${i}-tz`}>
                <NativeSelect value={window.timezoneSource} onChange={(e) => setWindow({ timezoneSource: e.target.value as "contact" | "agent" })}>
                  <option value="contact">The contact&apos;s timezone</option>
                  <option value="agent">The agent&apos;s first timezone</option>
                </NativeSelect>
              </Field>
              <Field label="Day offset" id={`step-${i}-day-offset`} hint="Days to skip before the window opens.">
                <Input type="number" min={0} value={window.dayOffset} onChange={(e) => setWindow({ dayOffset: Math.max(0, Math.round(Number(e.target.value))) })} />
              </Field>
            </div>
            <MessageStepFields index={i} step={step} context={templateContext} onChange={(patch) => update(i, (s) => ({ ...s, ...patch }))} />
            <WindowPreview step={step} agentZone={agentZone} />
            <div className="flex flex-wrap gap-2">
              <Button size="sm" disabled={i === 0} onClick={() => onChange(swap(steps, i, i - 1))}>
                Move up
              </Button>
              <Button size="sm" disabled={i === steps.length - 1} onClick={() => onChange(swap(steps, i, i + 1))}>
                Move down
              </Button>
              <Button size="sm" variant="danger" disabled={steps.length === 1} onClick={() => onChange(steps.filter((_, j) => j !== i))}>
                Remove step
              </Button>
            </div>
          </fieldset>
        );
      })}
      <div>
        <Button size="sm" onClick={() => onChange([...steps, NEW_STEP])}>
          Add step
        </Button>
      </div>
    </div>
  );
}

function swap<T>(items: T[], a: number, b: number): T[] {
  const copy = [...items];
  [copy[a], copy[b]] = [copy[b]!, copy[a]!];
  return copy;
}
