import type { Metadata } from "next";
import { MessagingView } from "./messaging-view";

export const metadata: Metadata = { title: "Messaging" };

export default function MessagingPage() {
  return <MessagingView />;
}
