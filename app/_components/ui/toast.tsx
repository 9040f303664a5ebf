"use client";

import dynamic from "next/dynamic";
import { useSyncExternalStore, type ReactNode } from "react";
import type { ToastItem, ToastTone } from "./toast-types";

export type { ToastItem, ToastTone } from "./toast-types";

// One list for the page, outside React: `toast()` can be called from a mutation's onSuccess anywhere.
let items: ToastItem[] = [];
let nextId = 1;
let shown = false;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((listener) => listener());

/** Shows a short message in the corner (announced politely; errors assertively). Returns its id. */
export function toast(input: { title: ReactNode; description?: ReactNode; tone?: ToastTone }): number {
  const id = nextId++;
  items = [...items.slice(-2), { id, tone: "success", ...input }];
  shown = true;
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

// Radix Toast (and its collection code) is fetched with the first toast, not with every page.
const ToastList = dynamic(() => import("./toast-list"), { ssr: false });

/** Mounted once by the dashboard shell. */
export function Toaster() {
  const list = useSyncExternalStore(subscribe, () => items, () => EMPTY);
  // Once loaded it stays mounted, so a closing toast can animate out and the viewport keeps its place.
  if (!shown) return null;
  return <ToastList list={list} dismiss={dismiss} />;
}
