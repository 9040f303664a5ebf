import type { Metadata } from "next";
import { AgentsListView } from "./agents-list-view";

export const metadata: Metadata = { title: "Agents" };

export default function AgentsPage() {
  return <AgentsListView />;
}
