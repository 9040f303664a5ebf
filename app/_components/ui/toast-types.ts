import type { ReactNode } from "react";

export type ToastTone = "success" | "error" | "info";
export type ToastItem = { id: number; title: ReactNode; description?: ReactNode; tone: ToastTone };
