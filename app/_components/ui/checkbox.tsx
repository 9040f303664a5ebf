"use client";

import { useId, type ComponentProps, type ReactNode } from "react";
import { cn } from "./cn";
import { useFieldControl } from "./field";

type CheckboxProps = Omit<ComponentProps<"input">, "type" | "checked" | "onChange"> & {
  checked?: boolean;
  onCheckedChange?: (checked: boolean) => void;
};

/**
 * A checkbox: the native `<input type="checkbox">` in the theme's colour (`accent-color`). Unlike the select, menu or
 * dialog, HTML's checkbox already has everything (keyboard, forms, `:checked`, screen readers), so no Radix code is
 * shipped for it; the props follow Radix's (`checked`, `onCheckedChange`) so the kit reads the same everywhere.
 */
export function Checkbox({ className, onCheckedChange, ...props }: CheckboxProps) {
  const field = useFieldControl(props);
  return (
    <input
      type="checkbox"
      data-slot="checkbox"
      className={cn("size-4.5 shrink-0 cursor-pointer accent-primary disabled:cursor-not-allowed disabled:opacity-60", className)}
      onChange={(event) => onCheckedChange?.(event.target.checked)}
      {...props}
      {...field}
    />
  );
}

/** A checkbox with its label beside it (and an optional hint under both). */
export function CheckboxField({ label, hint, className, ...props }: CheckboxProps & { label: ReactNode; hint?: ReactNode }) {
  const id = useId();
  const controlId = props.id ?? `checkbox${id}`;
  return (
    <div className={cn("flex items-start gap-2", className)}>
      <Checkbox {...props} id={controlId} aria-describedby={hint ? `${controlId}-hint` : undefined} className="mt-0.5" />
      <div className="min-w-0">
        <label htmlFor={controlId} className="font-medium">
          {label}
        </label>
        {hint && (
          <p id={`${controlId}-hint`} className="text-sm text-muted-foreground">
            {hint}
          </p>
        )}
      </div>
    </div>
  );
}
