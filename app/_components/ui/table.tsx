"use client";

import { createContext, useContext, useId, type ComponentProps } from "react";
import { cn } from "./cn";
import { useScrollRegion } from "./scroll-region";

/** The id of the table's caption, which also names the table's scroll box. */
const CaptionIdContext = createContext<string | undefined>(undefined);

/**
 * Table markup with the kit's look. The wrapper scrolls sideways on its own when a table is wider than the screen, so
 * the page itself never does (columns marked `hideBelow` in a DataTable are hidden on phones first); while it scrolls
 * it is a keyboard-reachable region named by the table's `TableCaption` (every table has one: `useScrollRegion`).
 * It is `relative` so that what is positioned inside it (a header read by screen readers only, `sr-only`) is clipped
 * with it, not placed against the page, which would then scroll sideways.
 */
export function Table({ className, wrapperClassName, ...props }: ComponentProps<"table"> & { wrapperClassName?: string }) {
  const captionId = useId();
  const scrollRegion = useScrollRegion<HTMLDivElement>({ labelledBy: captionId });
  return (
    <div
      ref={scrollRegion.ref}
      {...scrollRegion.props}
      data-slot="table-wrapper"
      className={cn("relative max-w-full overflow-x-auto rounded-lg border border-border bg-card", wrapperClassName)}
    >
      <CaptionIdContext.Provider value={captionId}>
        <table className={cn("w-full border-collapse text-left text-[0.95rem]", className)} {...props} />
      </CaptionIdContext.Provider>
    </div>
  );
}

export function TableCaption({ className, ...props }: ComponentProps<"caption">) {
  return <caption id={useContext(CaptionIdContext)} className={cn("sr-only", className)} {...props} />;
}

export function TableHeader({ className, ...props }: ComponentProps<"thead">) {
  return <thead className={cn("bg-gray-50", className)} {...props} />;
}

export function TableBody(props: ComponentProps<"tbody">) {
  return <tbody {...props} />;
}

export function TableRow({ className, ...props }: ComponentProps<"tr">) {
  return <tr className={cn("border-b border-gray-200 last:border-b-0", className)} {...props} />;
}

export function TableHead({ className, numeric, ...props }: ComponentProps<"th"> & { numeric?: boolean }) {
  return (
    <th
      scope="col"
      className={cn("px-2.5 py-2 align-bottom text-xs font-semibold tracking-wide text-muted-foreground uppercase", numeric && "text-right", className)}
      {...props}
    />
  );
}

export function TableCell({ className, numeric, ...props }: ComponentProps<"td"> & { numeric?: boolean }) {
  return <td className={cn("px-2.5 py-2 align-top break-words", numeric && "text-right tabular-nums", className)} {...props} />;
}
