"use client";

import { Label as LabelPrimitive } from "@radix-ui/react-label";
import { createContext, useContext, useId, type ComponentProps, type ReactNode } from "react";
import { cn } from "./cn";

export function Label({ className, ...props }: ComponentProps<typeof LabelPrimitive>) {
  return <LabelPrimitive data-slot="label" className={cn("text-sm font-semibold text-foreground", className)} {...props} />;
}

type FieldContextValue = { id: string; hintId?: string; errorId?: string; invalid: boolean };
const FieldContext = createContext<FieldContextValue | null>(null);

/**
 * The id, description and invalid state a control inside a `<Field>` takes: `Input`, `Textarea`, `NativeSelect` and
 * `Checkbox` call this, so `<Field label="URL"><Input …/></Field>` is labelled, described and marked invalid.
 */
export function useFieldControl(props: { id?: string; "aria-describedby"?: string; "aria-invalid"?: ComponentProps<"input">["aria-invalid"] }) {
  const field = useContext(FieldContext);
  if (!field) return props;
  const describedBy = [props["aria-describedby"], field.hintId, field.errorId].filter(Boolean).join(" ") || undefined;
  return { id: props.id ?? field.id, "aria-describedby": describedBy, "aria-invalid": props["aria-invalid"] ?? (field.invalid || undefined) };
}

export type FieldProps = {
  label: ReactNode;
  /** Shown under the control and read out with it. */
  hint?: ReactNode;
  /** The error under the control (its text is read out with it; the control is marked invalid). */
  error?: ReactNode;
  /** The control's id when it must be a known one (tests, links); generated otherwise. */
  id?: string;
  /** The label is read by screen readers only (a table cell's control, a search box with a placeholder). */
  hideLabel?: boolean;
  className?: string;
  children: ReactNode;
};

/** A labelled form control with its hint and error text. */
export function Field({ label, hint, error, id, hideLabel = false, className, children }: FieldProps) {
  const generated = useId();
  const controlId = id ?? `field${generated}`;
  const value: FieldContextValue = {
    id: controlId,
    hintId: hint ? `${controlId}-hint` : undefined,
    errorId: error ? `${controlId}-error` : undefined,
    invalid: Boolean(error),
  };
  return (
    <FieldContext.Provider value={value}>
      <div data-slot="field" className={cn("flex min-w-0 flex-col gap-1", className)}>
        <Label htmlFor={controlId} className={hideLabel ? "sr-only" : undefined}>
          {label}
        </Label>
        {children}
        {hint && (
          <p id={value.hintId} className="text-sm text-muted-foreground">
            {hint}
          </p>
        )}
        {error && (
          <p id={value.errorId} className="text-sm font-medium text-danger">
            {error}
          </p>
        )}
      </div>
    </FieldContext.Provider>
  );
}

/** A group of controls under one legend (checkbox lists, a time window's two ends). */
export function FieldSet({ legend, hint, className, children }: { legend: ReactNode; hint?: ReactNode; className?: string; children: ReactNode }) {
  return (
    <fieldset className={cn("flex min-w-0 flex-col gap-1 border-0 p-0", className)}>
      <legend className="mb-1 text-sm font-semibold">{legend}</legend>
      {hint && <p className="text-sm text-muted-foreground">{hint}</p>}
      {children}
    </fieldset>
  );
}

/** Form controls side by side that wrap on narrow screens. */
export function FieldRow({ className, ...props }: ComponentProps<"div">) {
  return <div className={cn("grid grid-cols-1 items-start gap-3 sm:grid-cols-[repeat(auto-fit,minmax(12rem,1fr))]", className)} {...props} />;
}
