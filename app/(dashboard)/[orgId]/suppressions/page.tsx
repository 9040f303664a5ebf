import type { Metadata } from "next";
import { SuppressionsView } from "./suppressions-view";

export const metadata: Metadata = { title: "Suppressions" };

export default function SuppressionsPage() {
  return <SuppressionsView />;
}
