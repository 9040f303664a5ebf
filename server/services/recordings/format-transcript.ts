type Turn = { speaker?: unknown; role?: unknown; text?: unknown; content?: unknown; message?: unknown };

const SPEAKER_NAMES: Record<string, string> = { agent: "Agent", assistant: "Agent", bot: "Agent", user: "Customer", customer: "Customer", contact: "Customer", human: "Customer" };

function speakerLabel(value: unknown): string {
  const raw = typeof value === "string" ? value.trim() : "";
  return SPEAKER_NAMES[raw.toLowerCase()] ?? (raw || "Speaker");
}

/**
 * The transcript as formatted speaker turns, one `Speaker: text` line per turn. Transcripts are stored as that text
 * already; a JSON array of turns (`[{speaker|role, text|content|message}]`, as some voice providers deliver them)
 * is formatted the same way, so integrators always receive one shape.
 */
export function formatTranscript(stored: string): string {
  const trimmed = stored.trim();
  if (trimmed.startsWith("[")) {
    try {
      const turns = JSON.parse(trimmed) as unknown;
      if (Array.isArray(turns) && turns.every((turn) => turn && typeof turn === "object")) {
        return (turns as Turn[])
          .map((turn) => {
            const text = [turn.text, turn.content, turn.message].find((value) => typeof value === "string") as string | undefined;
            return `${speakerLabel(turn.speaker ?? turn.role)}: ${(text ?? "").trim()}`;
          })
          .join("\n");
      }
    } catch {
      // Not JSON: plain formatted text.
    }
  }
  return trimmed;
}
