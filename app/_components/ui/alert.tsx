import { cva, type VariantProps } from "class-variance-authority";
import type { ComponentProps } from "react";
import { cn } from "./cn";

const alertVariants = cva("min-w-0 rounded-lg border px-3.5 py-3 break-words [&_p+p]:mt-2", {
  variants: {
    tone: {
      error: "border-danger-border bg-danger-soft text-danger",
      success: "border-success-border bg-success-soft text-success",
      warning: "border-warning-border bg-warning-soft text-warning",
      info: "border-primary/30 bg-primary-soft text-foreground",
    },
  },
  defaultVariants: { tone: "info" },
});

/**
 * A message box. Errors are announced at once (`role="alert"`), the other tones politely (`role="status"`), unless the
 * caller says otherwise (`role="note"` for a standing remark).
 */
export function Alert({ className, tone, role, ...props }: ComponentProps<"div"> & VariantProps<typeof alertVariants>) {
  return <div data-slot="alert" role={role ?? (tone === "error" ? "alert" : "status")} className={cn(alertVariants({ tone }), className)} {...props} />;
}

export function AlertTitle({ className, ...props }: ComponentProps<"p">) {
  return <p className={cn("font-semibold", className)} {...props} />;
}
