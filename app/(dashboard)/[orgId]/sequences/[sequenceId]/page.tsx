import type { Metadata } from "next";
import { SequenceView } from "./sequence-view";

export const metadata: Metadata = { title: "Sequence" };

type Props = { params: Promise<{ sequenceId: string }> };

export default async function SequencePage({ params }: Props) {
  return <SequenceView sequenceId={decodeURIComponent((await params).sequenceId)} />;
}
