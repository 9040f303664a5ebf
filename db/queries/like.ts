/**
 * A `LIKE`/`ILIKE` pattern matching `value` anywhere in a column: `%`, `_` and `\` in what the user typed are escaped
 * (PostgreSQL's default escape character is `\`), so they match themselves instead of acting as wildcards.
 */
export function containsPattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
