import { clsx, type ClassValue } from "clsx";
import { twMerge } from "tailwind-merge";

/** Class names joined, later Tailwind utilities winning over earlier ones (`cn("p-4", props.className)`). */
export function cn(...inputs: ClassValue[]): string {
  return twMerge(clsx(inputs));
}
