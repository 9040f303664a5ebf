import type { Metadata } from "next";
import { CallView } from "./call-view";
import { pageParam } from "../../../../_components/page-param";

export const metadata: Metadata = { title: "Call" };

type Props = { params: Promise<{ callId: string }> };

export default async function CallPage({ params }: Props) {
  return <CallView callId={await pageParam(params, "callId")} />;
}
