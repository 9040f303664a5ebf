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
  /** The server's refusal of the whole list (under it) and of single values (under each, which is marked invalid). */
  error?: string;
  itemErrors?: ReadonlyArray<string | undefined>;
};

/** A list of short texts (timezones, caller IDs, dropdown options): one input per value, remove and add buttons. */
export function StringListEditor({ id, label, values, onChange, placeholder, addLabel, listId, hint, error, itemErrors }: Props) {
  return (
    <FieldSet legend={label} hint={hint}>
      {values.map((value, i) => {
        const itemError = itemErrors?.[i];
        const describedBy = [itemError && `${id}-${i}-error`, error && `${id}-error`].filter(Boolean).join(" ") || undefined;
        return (
          <div className="mt-1" key={i}>
            <div className="flex items-center gap-2">
              <label className="sr-only" htmlFor={`${id}-${i}`}>
                {label} {i + 1}
              </label>
              <Input
                id={`${id}-${i}`}
                value={value}
                placeholder={placeholder}
                list={listId}
                className="flex-1"
                aria-invalid={itemError || error ? true : undefined}
                aria-describedby={describedBy}
                onChange={(e) => onChange(values.map((v, j) => (j === i ? e.target.value : v)))}
              />
              <Button size="sm" onClick={() => onChange(values.filter((_, j) => j !== i))} aria-label={`Remove ${label} ${i + 1}`}>
                Remove
              </Button>
            </div>
            {itemError && (
              <p id={`${id}-${i}-error`} className="mt-1 text-sm font-medium text-danger">
                {itemError}
              </p>
            )}
          </div>
        );
      })}
      {error && (
        <p id={`${id}-error`} className="mt-1 text-sm font-medium text-danger">
          {error}
        </p>
      )}
      <div className="mt-1.5">
        <Button size="sm" onClick={() => onChange([...values, ""])}>
          {addLabel}
        </Button>
      </div>
    </FieldSet>
  );
}
