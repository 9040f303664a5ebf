import type { ReactNode } from "react";
import { cn } from "./cn";

/** Label → value pairs (a contact's details, a call's facts): two columns on wide screens, stacked on phones. */
export function DescriptionList({ items, className }: { items: Array<{ label: ReactNode; value: ReactNode; key?: string } | false | null | undefined | "">; className?: string }) {
  return (
    <dl className={cn("grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-[minmax(7.5rem,max-content)_minmax(0,1fr)] sm:gap-y-1.5", className)}>
      {items
        .filter((item): item is { label: ReactNode; value: ReactNode; key?: string } => Boolean(item))
        .map((item, index) => (
          <div key={item.key ?? index} className="contents">
            <dt className="text-sm text-muted-foreground max-sm:mt-1.5">{item.label}</dt>
            <dd className="min-w-0 break-words">{item.value}</dd>
          </div>
        ))}
    </dl>
  );
}
