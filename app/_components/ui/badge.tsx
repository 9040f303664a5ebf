import { cva, type VariantProps } from "class-variance-authority";
import type { ComponentProps } from "react";
import { cn } from "./cn";

export const badgeVariants = cva("inline-flex items-center gap-1 rounded-full border px-2 py-px text-xs font-bold whitespace-nowrap", {
  variants: {
    tone: {
      neutral: "border-gray-400 bg-muted text-gray-700",
      success: "border-success/60 bg-success-soft text-success",
      warning: "border-warning/60 bg-warning-soft text-warning",
      danger: "border-danger/60 bg-danger-soft text-danger",
      info: "border-primary/50 bg-primary-soft text-primary",
    },
  },
  defaultVariants: { tone: "neutral" },
});

export type BadgeTone = NonNullable<VariantProps<typeof badgeVariants>["tone"]>;

export function Badge({ className, tone, ...props }: ComponentProps<"span"> & VariantProps<typeof badgeVariants>) {
  return <span data-slot="badge" className={cn(badgeVariants({ tone }), className)} {...props} />;
}
