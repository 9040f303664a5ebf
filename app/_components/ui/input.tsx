"use client";

import type { ComponentProps } from "react";
import { cn } from "./cn";
import { useFieldControl } from "./field";

export const controlClass =
  "w-full min-w-0 rounded-md border border-input bg-card px-2.5 py-1.5 text-[0.95rem] text-foreground placeholder:text-muted-foreground disabled:cursor-not-allowed disabled:bg-muted aria-invalid:border-danger";

export function Input({ className, type = "text", ...props }: ComponentProps<"input">) {
  const field = useFieldControl(props);
  return <input data-slot="input" type={type} className={cn(controlClass, "min-h-9.5", className)} {...props} {...field} />;
}

export function Textarea({ className, ...props }: ComponentProps<"textarea">) {
  const field = useFieldControl(props);
  return <textarea data-slot="textarea" className={cn(controlClass, "min-h-32 resize-y", className)} {...props} {...field} />;
}

/**
 * The browser's own select, styled: the right control for forms (native pickers on phones, keyboard and screen-reader
 * behaviour for free). `Select` (Radix) is for menus that need rich items.
 */
export function NativeSelect({ className, ...props }: ComponentProps<"select">) {
  const field = useFieldControl(props);
  return <select data-slot="native-select" className={cn(controlClass, "min-h-9.5 pr-8", className)} {...props} {...field} />;
}
