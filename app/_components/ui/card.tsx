import { useId, type ComponentProps, type ReactNode } from "react";
import { cn } from "./cn";

export function Card({ className, ...props }: ComponentProps<"div">) {
  return <div data-slot="card" className={cn("min-w-0 rounded-lg border border-border bg-card p-4 sm:p-5", className)} {...props} />;
}

export function CardHeader({ className, ...props }: ComponentProps<"div">) {
  return <div data-slot="card-header" className={cn("mb-3 flex flex-wrap items-start justify-between gap-x-4 gap-y-2", className)} {...props} />;
}

export function CardTitle({ className, as: Heading = "h2", ...props }: ComponentProps<"h2"> & { as?: "h2" | "h3" }) {
  return <Heading data-slot="card-title" className={cn("text-lg font-semibold", className)} {...props} />;
}

export function CardDescription({ className, ...props }: ComponentProps<"p">) {
  return <p data-slot="card-description" className={cn("text-sm text-muted-foreground", className)} {...props} />;
}

/**
 * A titled card that is a landmark section (labelled by its heading): the building block of detail pages and editors.
 */
export function Section({
  title,
  description,
  actions,
  headingLevel = "h2",
  className,
  children,
  ...props
}: Omit<ComponentProps<"section">, "title"> & { title: ReactNode; description?: ReactNode; actions?: ReactNode; headingLevel?: "h2" | "h3" }) {
  const id = useId();
  return (
    <section aria-labelledby={`${id}-title`} className={cn("min-w-0 rounded-lg border border-border bg-card p-4 sm:p-5", className)} {...props}>
      <CardHeader>
        <div className="min-w-0">
          <CardTitle id={`${id}-title`} as={headingLevel}>
            {title}
          </CardTitle>
          {description && <CardDescription className="mt-1">{description}</CardDescription>}
        </div>
        {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
      </CardHeader>
      {children}
    </section>
  );
}
