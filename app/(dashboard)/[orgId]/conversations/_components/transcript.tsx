import { cn } from "../../../../_components/ui/cn";

export type TranscriptTurn = { speaker: string; text: string };

const TURN = /^([^:\n]{1,40}):\s?(.*)$/;

/** `Speaker: text` lines (the formatted transcript of a recording) → turns; other lines continue the turn before. */
export function parseTranscript(text: string): TranscriptTurn[] {
  const turns: TranscriptTurn[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const match = TURN.exec(line);
    if (match) turns.push({ speaker: match[1]!.trim(), text: match[2]!.trim() });
    else if (turns.length > 0) turns[turns.length - 1]!.text += `\n${line}`;
    else turns.push({ speaker: "", text: line });
  }
  return turns;
}

function speakerKind(speaker: string): "agent" | "contact" | "other" {
  const s = speaker.toLowerCase();
  if (s === "agent" || s === "assistant" || s === "bot") return "agent";
  if (s === "customer" || s === "contact" || s === "user" || s === "human") return "contact";
  return "other";
}

const KIND_CLASS = { agent: "border-blue-200 bg-primary-soft", contact: "border-gray-200 bg-card", other: "border-gray-200 bg-gray-50" } as const;

export function Transcript({ text, contactName }: { text: string; contactName?: string }) {
  const turns = parseTranscript(text);
  return (
    <ol className="flex flex-col gap-2" aria-label="Transcript" data-testid="transcript">
      {turns.map((turn, index) => {
        const kind = speakerKind(turn.speaker);
        const label = kind === "contact" && contactName ? `${turn.speaker} (${contactName})` : turn.speaker || "—";
        return (
          <li key={index} className={cn("grid grid-cols-1 gap-0.5 rounded-md border px-2.5 py-2 sm:grid-cols-[9rem_minmax(0,1fr)] sm:gap-3", KIND_CLASS[kind])}>
            <span className="text-sm font-bold break-words">{label}</span>
            <span className="break-words whitespace-pre-wrap">{turn.text}</span>
          </li>
        );
      })}
    </ol>
  );
}
