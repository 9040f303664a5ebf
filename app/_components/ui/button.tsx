import { Slot } from "@radix-ui/react-slot";
import { cva, type VariantProps } from "class-variance-authority";
import type { ComponentProps } from "react";
import { cn } from "./cn";

export const buttonVariants = cva(
  "inline-flex shrink-0 items-center justify-center gap-1.5 rounded-md border font-semibold whitespace-nowrap no-underline transition-colors disabled:cursor-not-allowed disabled:opacity-60 [&_svg]:size-4 [&_svg]:shrink-0",
  {
    variants: {
      variant: {
        primary: "border-primary bg-primary text-primary-foreground hover:bg-primary-hover hover:text-primary-foreground",
        secondary: "border-border bg-card text-foreground hover:bg-muted hover:text-foreground",
        danger: "border-danger bg-card text-danger hover:bg-danger-soft hover:text-danger",
        ghost: "border-transparent bg-transparent text-foreground hover:bg-muted hover:text-foreground",
        link: "h-auto border-transparent bg-transparent p-0 text-primary underline underline-offset-2 hover:text-primary-hover",
      },
      size: {
        md: "min-h-9.5 px-3.5 py-1.5 text-[0.95rem]",
        sm: "min-h-8 px-2.5 py-1 text-sm",
        icon: "size-9.5 p-0",
      },
    },
    compoundVariants: [{ variant: "link", className: "min-h-0 px-0 py-0" }],
    defaultVariants: { variant: "secondary", size: "md" },
  },
);

export type ButtonProps = ComponentProps<"button"> & VariantProps<typeof buttonVariants> & { asChild?: boolean };

/** A button; `asChild` styles its child instead (a Next `<Link>` that looks like a button). */
export function Button({ className, variant, size, asChild = false, type, ...props }: ButtonProps) {
  const Component = asChild ? Slot : "button";
  return (
    <Component
      data-slot="button"
      className={cn(buttonVariants({ variant, size }), className)}
      {...(asChild ? {} : { type: type ?? "button" })}
      {...props}
    />
  );
}
