import { describe, expect, it } from "vitest";
import { createRedactor, redactDeep, REDACTION_CATEGORIES } from "@/server/services/privacy/redaction";
import { CORPUS_EXEMPTIONS, ISSUE_EXAMPLE, LOOKALIKE_CATEGORIES, REDACTION_CORPUS, SENSITIVE_CATEGORIES } from "@/tests/fixtures/redaction-corpus";
import { scoreCorpus, type Failure } from "@/tests/fixtures/redaction-score";

/**
 * Issue 34: redaction ate dates and times ("2026-12-02 15:30:00" read as a phone number). The real redaction function
 * over the labelled corpus (tests/fixtures/redaction-corpus.ts): recall ≥ 99 % on every sensitive category, ≥ 99 % of
 * look-alikes left unchanged, and the markers it writes of the right category (bench/redaction.ts prints the table).
 */

const redactor = createRedactor({ categories: REDACTION_CATEGORIES, patterns: [] }, CORPUS_EXEMPTIONS);
const score = scoreCorpus(REDACTION_CORPUS, (text) => redactor.redactText(text));
const GOAL = 0.99;

const failuresOf = (category: string) =>
  score.failures
    .filter((failure: Failure) => failure.category === category)
    .map((failure) => `\n  ${failure.text}\n    got:  ${failure.got}\n    want: ${failure.want}`)
    .join("");

describe("redaction on the labelled corpus (issue 34)", () => {
  it("keeps the issue's callback time as said, as extracted and in the summary", () => {
    expect(redactor.redactText(ISSUE_EXAMPLE.said)).toBe(ISSUE_EXAMPLE.said);
    expect(redactor.redactText(ISSUE_EXAMPLE.extracted)).toBe(ISSUE_EXAMPLE.extracted);
    expect(redactor.redactText(ISSUE_EXAMPLE.summary)).toBe(ISSUE_EXAMPLE.summary);
    const extracted = { callback_time: ISSUE_EXAMPLE.extracted, when: `${ISSUE_EXAMPLE.said}, call 415-555-0199` };
    expect(redactDeep(extracted, redactor)).toEqual({ callback_time: ISSUE_EXAMPLE.extracted, when: `${ISSUE_EXAMPLE.said}, call [redacted:phone]` });
  });

  it("has at least 300 utterances, at least half of them sensitive, and every category", () => {
    const sensitive = REDACTION_CORPUS.filter((entry) => entry.kind === "sensitive").length;
    expect(REDACTION_CORPUS.length).toBeGreaterThanOrEqual(300);
    expect(sensitive * 2).toBeGreaterThanOrEqual(REDACTION_CORPUS.length);
    for (const category of [...SENSITIVE_CATEGORIES, ...LOOKALIKE_CATEGORIES]) expect(REDACTION_CORPUS.some((entry) => entry.category === category), category).toBe(true);
    expect(new Set(REDACTION_CORPUS.map((entry) => entry.text)).size, "no utterance twice").toBe(REDACTION_CORPUS.length);
  });

  it.each(SENSITIVE_CATEGORIES)("%s: recall ≥ 99 %%", (category) => {
    const entry = score.sensitive.find((item) => item.category === category)!;
    expect(entry.values).toBeGreaterThan(0);
    expect(entry.recall, `${entry.removed}/${entry.values} removed${failuresOf(category)}`).toBeGreaterThanOrEqual(GOAL);
  });

  it.each(LOOKALIKE_CATEGORIES)("%s look-alikes: ≥ 99 %% kept unchanged", (category) => {
    const entry = score.lookalike.find((item) => item.category === category)!;
    expect(entry.utterances).toBeGreaterThan(0);
    expect(entry.keptShare, `${entry.kept}/${entry.utterances} kept${failuresOf(category)}`).toBeGreaterThanOrEqual(GOAL);
  });

  it("writes markers of the right category: precision ≥ 99 % per marker", () => {
    for (const marker of score.markers) expect(marker.precision, `${marker.marker}: ${marker.correct}/${marker.emitted}`).toBeGreaterThanOrEqual(GOAL);
  });
});
