"use client";

import * as ToastPrimitive from "@radix-ui/react-toast";
import { X } from "lucide-react";
import { useSyncExternalStore, type ReactNode } from "react";
import { cn } from "./cn";

type ToastTone = "success" | "error" | "info";
type ToastItem = { id: number; title: ReactNode; description?: ReactNode; tone: ToastTone };

// One list for the page, outside React: `toast()` can be called from a mutation's onSuccess anywhere.
let items: ToastItem[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((listener) => listener());

/** Shows a short message in the corner (announced politely; errors assertively). Returns its id. */
export function toast(input: { title: ReactNode; description?: ReactNode; tone?: ToastTone }): number {
  const id = nextId++;
  items = [...items.slice(-2), { id, tone: "success", ...input }];
  emit();
  return id;
}

function dismiss(id: number) {
  items = items.filter((item) => item.id !== id);
  emit();
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const EMPTY: ToastItem[] = [];

const TONE: Record<ToastTone, string> = {
  success: "border-success-border bg-success-soft text-success",
  error: "border-danger-border bg-danger-soft text-danger",
  info: "border-border bg-card text-foreground",
};

/** Mounted once by the dashboard layout. */
export function Toaster() {
  const list = useSyncExternalStore(subscribe, () => items, () => EMPTY);
  return (
    <ToastPrimitive.Provider duration={6000} swipeDirection="right">
      {list.map((item) => (
        <ToastPrimitive.Root
          key={item.id}
          type={item.tone === "error" ? "foreground" : "background"}
          onOpenChange={(open) => !open && dismiss(item.id)}
          className={cn("relative flex items-start gap-3 rounded-lg border py-3 pr-9 pl-4 shadow-lg", TONE[item.tone])}
          data-testid="toast"
        >
          <div className="min-w-0">
            <ToastPrimitive.Title className="font-semibold">{item.title}</ToastPrimitive.Title>
            {item.description && <ToastPrimitive.Description className="text-sm">{item.description}</ToastPrimitive.Description>}
          </div>
          <ToastPrimitive.Close className="absolute top-2.5 right-2.5 rounded p-0.5 hover:bg-black/5" aria-label="Dismiss">
            <X className="size-4" aria-hidden="true" />
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      <ToastPrimitive.Viewport className="fixed right-0 bottom-0 z-[60] m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 outline-none" />
    </ToastPrimitive.Provider>
  );
}
