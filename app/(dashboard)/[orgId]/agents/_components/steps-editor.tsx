"use client";

import { useSyncExternalStore } from "react";
import type { AgentDraft } from "./agent-draft";
import { clockToMinutes, formatInZone, instantInZone, isValidZone, minutesToClock } from "./time-window";

type Step = AgentDraft["steps"][number];
const UNITS = [
  { label: "minutes", seconds: 60 },
  { label: "hours", seconds: 3600 },
  { label: "days", seconds: 86_400 },
] as const;

function bestUnit(seconds: number) {
  return [...UNITS].reverse().find((u) => seconds % u.seconds === 0) ?? UNITS[0];
}

const subscribe = () => () => {};

export const NEW_STEP: Step = {
  stepType: "CALL",
  delaySeconds: 86_400,
  delaySecondsMax: null,
  executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 540, endTime: 1020 }, timezoneSource: "contact" },
};

function DurationInput({ id, label, seconds, onChange }: { id: string; label: string; seconds: number; onChange: (seconds: number) => void }) {
  const unit = bestUnit(seconds);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="row" style={{ flexWrap: "nowrap", gap: 6 }}>
        <input id={id} type="number" min={0} value={seconds / unit.seconds} onChange={(e) => onChange(Math.max(0, Math.round(Number(e.target.value) * unit.seconds)))} />
        <select aria-label={`${label} unit`} value={unit.seconds} onChange={(e) => onChange((seconds / unit.seconds) * Number(e.target.value))}>
          {UNITS.map((u) => (
            <option key={u.label} value={u.seconds}>
              {u.label}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}

/** Where the window lands for the viewer: the hours in the chosen timezone, converted for today. */
function WindowPreview({ step, agentZone }: { step: Step; agentZone: string | undefined }) {
  const isClient = useSyncExternalStore(subscribe, () => true, () => false);
  const { startTime, endTime } = step.executionWindowConfig.timeWindow;
  const left = (startTime / 1440) * 100;
  const width = (Math.max(0, endTime - startTime) / 1440) * 100;
  const zone = agentZone && isValidZone(agentZone) ? agentZone : undefined;
  const source = step.executionWindowConfig.timezoneSource;
  return (
    <div>
      <div className="window-bar" aria-hidden="true">
        <div className="fill" style={{ left: `${left}%`, width: `${width}%` }} />
      </div>
      <div className="window-scale" aria-hidden="true">
        <span>00:00</span>
        <span>06:00</span>
        <span>12:00</span>
        <span>18:00</span>
        <span>24:00</span>
      </div>
      <p className="hint" style={{ margin: "4px 0 0" }}>
        Calls between <strong>{minutesToClock(startTime)}</strong> and <strong>{minutesToClock(endTime)}</strong>{" "}
        {source === "contact" ? "in each contact's own timezone" : `in ${zone ?? "the agent's first timezone"}`}
        {isClient && zone && (
          <>
            {" "}— {source === "contact" ? `for a contact in ${zone}, ` : ""}today that is {formatInZone(instantInZone(zone, startTime), undefined)} to{" "}
            {formatInZone(instantInZone(zone, endTime), undefined)} in your timezone ({Intl.DateTimeFormat().resolvedOptions().timeZone})
          </>
        )}
        .
      </p>
    </div>
  );
}

export function StepsEditor({ steps, agentZone, onChange }: { steps: Step[]; agentZone: string | undefined; onChange: (steps: Step[]) => void }) {
  const update = (i: number, patch: (step: Step) => Step) => onChange(steps.map((s, j) => (j === i ? patch(s) : s)));
  return (
    <div>
      {steps.map((step, i) => {
        const window = step.executionWindowConfig;
        const setWindow = (patch: Partial<Step["executionWindowConfig"]>) => update(i, (s) => ({ ...s, executionWindowConfig: { ...s.executionWindowConfig, ...patch } }));
        return (
          <fieldset key={i} className="list-item" aria-label={`Step ${i + 1}`}>
            <legend className="label-text">Step {i + 1}</legend>
            <div className="row">
              <div className="field">
                <label htmlFor={`step-${i}-type`}>Type</label>
                <select id={`step-${i}-type`} value={step.stepType} onChange={(e) => update(i, (s) => ({ ...s, stepType: e.target.value as Step["stepType"] }))}>
                  <option value="CALL">Call</option>
                  <option value="EMAIL">Email (needs the contact&apos;s email)</option>
                </select>
              </div>
              <DurationInput id={`step-${i}-delay`} label={i === 0 ? "Delay after enrollment" : "Delay after the previous step"} seconds={step.delaySeconds} onChange={(delaySeconds) => update(i, (s) => ({ ...s, delaySeconds }))} />
              <div className="field">
                <label className="checkbox" htmlFor={`step-${i}-jitter`}>
                  <input
                    id={`step-${i}-jitter`}
                    type="checkbox"
                    checked={step.delaySecondsMax !== null}
                    onChange={(e) => update(i, (s) => ({ ...s, delaySecondsMax: e.target.checked ? s.delaySeconds + 3600 : null }))}
                  />
                  Random jitter
                </label>
                {step.delaySecondsMax !== null && (
                  <DurationInput id={`step-${i}-delay-max`} label="Up to" seconds={step.delaySecondsMax} onChange={(delaySecondsMax) => update(i, (s) => ({ ...s, delaySecondsMax }))} />
                )}
              </div>
            </div>
            <div className="row">
              <div className="field">
                <label htmlFor={`step-${i}-start`}>Window start</label>
                <input
                  id={`step-${i}-start`}
                  type="time"
                  step={900}
                  value={minutesToClock(window.timeWindow.startTime)}
                  onChange={(e) => {
                    const minutes = clockToMinutes(e.target.value);
                    if (minutes !== null) setWindow({ timeWindow: { ...window.timeWindow, startTime: minutes } });
                  }}
                />
              </div>
              <div className="field">
                <label htmlFor={`step-${i}-end`}>Window end</label>
                <input
                  id={`step-${i}-end`}
                  type="time"
                  step={900}
                  value={window.timeWindow.endTime === 1440 ? "00:00" : minutesToClock(window.timeWindow.endTime)}
                  aria-describedby={`step-${i}-end-hint`}
                  onChange={(e) => {
                    const minutes = clockToMinutes(e.target.value);
                    if (minutes !== null) setWindow({ timeWindow: { ...window.timeWindow, endTime: minutes === 0 ? 1440 : minutes } });
                  }}
                />
                <span id={`step-${i}-end-hint`} className="hint">
                  00:00 as the end means midnight (end of day).
                </span>
              </div>
              <div className="field">
                <label htmlFor={`step-${i}-tz`}>Window timezone</label>
                <select id={`step-${i}-tz`} value={window.timezoneSource} onChange={(e) => setWindow({ timezoneSource: e.target.value as "contact" | "agent" })}>
                  <option value="contact">The contact&apos;s timezone</option>
                  <option value="agent">The agent&apos;s first timezone</option>
                </select>
              </div>
              <div className="field">
                <label htmlFor={`step-${i}-day-offset`}>Day offset</label>
                <input id={`step-${i}-day-offset`} type="number" min={0} value={window.dayOffset} onChange={(e) => setWindow({ dayOffset: Math.max(0, Math.round(Number(e.target.value))) })} />
              </div>
            </div>
            <WindowPreview step={step} agentZone={agentZone} />
            <div className="actions" style={{ marginTop: 8 }}>
              <button type="button" className="btn btn-small" disabled={i === 0} onClick={() => onChange(swap(steps, i, i - 1))}>
                Move up
              </button>
              <button type="button" className="btn btn-small" disabled={i === steps.length - 1} onClick={() => onChange(swap(steps, i, i + 1))}>
                Move down
              </button>
              <button type="button" className="btn btn-small btn-danger" disabled={steps.length === 1} onClick={() => onChange(steps.filter((_, j) => j !== i))}>
                Remove step
              </button>
            </div>
          </fieldset>
        );
      })}
      <button type="button" className="btn btn-small" onClick={() => onChange([...steps, NEW_STEP])}>
        Add step
      </button>
    </div>
  );
}

function swap<T>(items: T[], a: number, b: number): T[] {
  const copy = [...items];
  [copy[a], copy[b]] = [copy[b]!, copy[a]!];
  return copy;
}
