import type { Metadata } from "next";
import { SequenceView } from "./sequence-view";
import { pageParam } from "../../../../_components/page-param";

export const metadata: Metadata = { title: "Sequence" };

type Props = { params: Promise<{ sequenceId: string }> };

export default async function SequencePage({ params }: Props) {
  return <SequenceView sequenceId={await pageParam(params, "sequenceId")} />;
}
