"use client";

import type { RouterOutputs } from "../../../_components/router-types";
import { CheckboxField } from "../../../_components/ui/checkbox";
import { FieldSet } from "../../../_components/ui/field";

export type WebhookEventType = RouterOutputs["webhooks"]["listEndpoints"]["endpoints"][number]["eventTypes"][number];

const EVENT_TYPES: Array<{ type: WebhookEventType; label: string }> = [
  { type: "call.result", label: "Call results" },
  { type: "number.health_changed", label: "Number health changes" },
];

/** What an endpoint receives: call results (the default) and/or number health changes (docs/numbers.md). */
export function EventTypesField({ value, onChange }: { value: WebhookEventType[]; onChange: (eventTypes: WebhookEventType[]) => void }) {
  return (
    <FieldSet legend="Events" hint="A number health change is sent when one of your numbers is put under watch, rested or back (its body has type number.health_changed).">
      <div className="mt-1 flex flex-wrap gap-x-5 gap-y-2">
        {EVENT_TYPES.map(({ type, label }) => (
          <CheckboxField
            key={type}
            label={label}
            checked={value.includes(type)}
            onCheckedChange={(checked) => onChange(checked === true ? [...value.filter((item) => item !== type), type] : value.filter((item) => item !== type))}
          />
        ))}
      </div>
    </FieldSet>
  );
}
