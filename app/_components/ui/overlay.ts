/** The classes of a modal's backdrop and box, in a module of their own: importing them loads no Radix code. */
export const overlayClass = "fixed inset-0 z-50 bg-gray-900/45";
export const dialogContentClass =
  "fixed top-1/2 left-1/2 z-50 flex max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 flex-col gap-3 overflow-y-auto rounded-lg border border-border bg-card p-5 shadow-xl";
