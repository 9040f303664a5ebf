"use client";

import { Checkbox as CheckboxPrimitive, CheckboxIndicator } from "@radix-ui/react-checkbox";
import { Check } from "lucide-react";
import { useId, type ComponentProps, type ReactNode } from "react";
import { cn } from "./cn";
import { useFieldControl } from "./field";

export function Checkbox({ className, ...props }: ComponentProps<typeof CheckboxPrimitive>) {
  const field = useFieldControl(props);
  return (
    <CheckboxPrimitive
      data-slot="checkbox"
      className={cn(
        "peer inline-flex size-4.5 shrink-0 items-center justify-center rounded border border-input bg-card text-primary-foreground disabled:cursor-not-allowed disabled:opacity-60 data-[state=checked]:border-primary data-[state=checked]:bg-primary",
        className,
      )}
      {...props}
      {...field}
    >
      <CheckboxIndicator>
        <Check className="size-3.5" strokeWidth={3} aria-hidden="true" />
      </CheckboxIndicator>
    </CheckboxPrimitive>
  );
}

/** A checkbox with its label beside it (and an optional hint under both). */
export function CheckboxField({
  label,
  hint,
  className,
  ...props
}: ComponentProps<typeof CheckboxPrimitive> & { label: ReactNode; hint?: ReactNode }) {
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
