import type { Metadata } from "next";
import { CallView } from "./call-view";

export const metadata: Metadata = { title: "Call" };

type Props = { params: Promise<{ callId: string }> };

export default async function CallPage({ params }: Props) {
  return <CallView callId={decodeURIComponent((await params).callId)} />;
}
