/** A transcript line as the live view holds it: `cursor` is its storage order, `offsetMs` its moment in the call. */
type OrderedLine = { cursor: number; offsetMs: number };

/**
 * The lines shown so far with newly fetched ones, each once, in the call's order (the media clock). Lines are fetched
 * in storage order, which is not always the call's: a contact's line is stored when its transcription completes, which
 * can be after the agent has started answering it.
 */
export function mergeTranscriptLines<T extends OrderedLine>(shown: T[], fetched: T[]): T[] {
  const seen = new Set(shown.map((line) => line.cursor));
  return [...shown, ...fetched.filter((line) => !seen.has(line.cursor))].sort((a, b) => a.offsetMs - b.offsetMs || a.cursor - b.cursor);
}

/** Where the next fetch starts: after the last line stored, wherever it is shown. */
export function lastCursor(lines: OrderedLine[]): number | undefined {
  return lines.length ? Math.max(...lines.map((line) => line.cursor)) : undefined;
}
