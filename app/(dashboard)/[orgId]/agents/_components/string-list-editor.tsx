"use client";

import { Button } from "../../../../_components/ui/button";
import { FieldSet } from "../../../../_components/ui/field";
import { Input } from "../../../../_components/ui/input";

type Props = {
  id: string;
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  placeholder?: string;
  addLabel: string;
  listId?: string;
  hint?: string;
};

/** A list of short texts (timezones, caller IDs, dropdown options): one input per value, remove and add buttons. */
export function StringListEditor({ id, label, values, onChange, placeholder, addLabel, listId, hint }: Props) {
  return (
    <FieldSet legend={label} hint={hint}>
      {values.map((value, i) => (
        <div className="mt-1 flex items-center gap-2" key={i}>
          <label className="sr-only" htmlFor={`${id}-${i}`}>
            {label} {i + 1}
          </label>
          <Input
            id={`${id}-${i}`}
            value={value}
            placeholder={placeholder}
            list={listId}
            className="flex-1"
            onChange={(e) => onChange(values.map((v, j) => (j === i ? e.target.value : v)))}
          />
          <Button size="sm" onClick={() => onChange(values.filter((_, j) => j !== i))} aria-label={`Remove ${label} ${i + 1}`}>
            Remove
          </Button>
        </div>
      ))}
      <div className="mt-1.5">
        <Button size="sm" onClick={() => onChange([...values, ""])}>
          {addLabel}
        </Button>
      </div>
    </FieldSet>
  );
}
