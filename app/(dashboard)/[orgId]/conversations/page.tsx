import type { Metadata } from "next";
import { Suspense } from "react";
import { Loading } from "../../../_components/ui/states";
import { ConversationsView } from "./conversations-view";

export const metadata: Metadata = { title: "Conversations" };

export default function ConversationsPage() {
  return (
    <Suspense fallback={<Loading rows={5} />}>
      <ConversationsView />
    </Suspense>
  );
}
