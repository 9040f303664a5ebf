import styles from "./console-ops.module.css";

export type TranscriptTurn = { speaker: string; text: string };

const TURN = /^([^:\n]{1,40}):\s?(.*)$/;

/** `Speaker: text` lines (the formatted transcript of GET /recordings/{callId}) → turns; other lines continue the turn before. */
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

export function Transcript({ text, contactName }: { text: string; contactName?: string }) {
  const turns = parseTranscript(text);
  return (
    <ol className={styles.transcript} aria-label="Transcript" data-testid="transcript">
      {turns.map((turn, index) => {
        const kind = speakerKind(turn.speaker);
        const label = kind === "contact" && contactName ? `${turn.speaker} (${contactName})` : turn.speaker || "—";
        return (
          <li key={index} className={`${styles.turn} ${kind === "agent" ? styles.turnAgent : kind === "contact" ? styles.turnContact : ""}`}>
            <span className={styles.speaker}>{label}</span>
            <span className={styles.turnText}>{turn.text}</span>
          </li>
        );
      })}
    </ol>
  );
}
