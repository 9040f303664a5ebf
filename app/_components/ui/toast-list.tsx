"use client";

import * as ToastPrimitive from "@radix-ui/react-toast";
import { X } from "lucide-react";
import { cn } from "./cn";
import type { ToastItem, ToastTone } from "./toast-types";

const TONE: Record<ToastTone, string> = {
  success: "border-success-border bg-success-soft text-success",
  error: "border-danger-border bg-danger-soft text-danger",
  info: "border-border bg-card text-foreground",
};

/** The Radix toasts themselves: loaded by `<Toaster>` with the first toast, so pages that never toast never fetch it. */
export default function ToastList({ list, dismiss }: { list: ToastItem[]; dismiss: (id: number) => void }) {
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
