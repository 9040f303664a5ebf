/**
 * Redaction quality and speed (issue 34: redaction ate dates and times). The labelled corpus
 * (tests/fixtures/redaction-corpus.ts: sensitive utterances with their values, and look-alikes that must stay) goes
 * through the real redaction function with every built-in category on and the corpus's exemptions (the contact's own
 * number and email). Printed:
 *   - per sensitive category: values, recall (share of values gone), exact (utterances redacted exactly as expected);
 *   - per marker: markers written, how many the corpus expected, precision;
 *   - per look-alike category: utterances, share left unchanged;
 *   - throughput in utterances per second, against a baseline measured in the same run: libphonenumber-js's
 *     `findPhoneNumbersInText` alone over the same utterances (the matcher a phone-only redactor runs, and the
 *     largest single cost in ours), and p50/p99 per utterance.
 * Goals: recall ≥ 99 % on every sensitive category, ≥ 99 % of look-alikes kept in every category (exit code 1 if not).
 *
 * Run: npx tsx bench/redaction.ts   (BENCH_SECONDS per throughput measurement, default 2)
 */
import { findPhoneNumbersInText } from "libphonenumber-js/max";
import { createRedactor, REDACTION_CATEGORIES } from "@/server/services/privacy/redaction";
import { CORPUS_EXEMPTIONS, REDACTION_CORPUS } from "@/tests/fixtures/redaction-corpus";
import { scoreCorpus } from "@/tests/fixtures/redaction-score";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const GOAL = 0.99;

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
const table = (header: string[], rows: Array<Array<string | number>>) => {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => String(row[column]).length)));
  const line = (cells: Array<string | number>) => `| ${cells.map((cell, column) => String(cell).padEnd(widths[column]!)).join(" | ")} |`;
  return [line(header), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...rows.map(line)].join("\n");
};

/** Utterances per second of `run` over the corpus, for about SECONDS, after a warm-up; and per-utterance p50/p99 in µs. */
function measure(run: (text: string) => unknown): { perSecond: number; p50: number; p99: number } {
  const texts = REDACTION_CORPUS.map((entry) => entry.text);
  for (let i = 0; i < 3; i++) for (const text of texts) run(text);
  const timings: number[] = [];
  const started = performance.now();
  let done = 0;
  while (performance.now() - started < SECONDS * 1000) {
    for (const text of texts) {
      const at = performance.now();
      run(text);
      timings.push(performance.now() - at);
    }
    done += texts.length;
  }
  const elapsed = (performance.now() - started) / 1000;
  timings.sort((a, b) => a - b);
  const at = (p: number) => timings[Math.min(timings.length - 1, Math.floor((p / 100) * timings.length))]! * 1000;
  return { perSecond: done / elapsed, p50: at(50), p99: at(99) };
}

function main() {
  const settings = { categories: REDACTION_CATEGORIES, patterns: [] };
  const redactor = createRedactor(settings, CORPUS_EXEMPTIONS);
  const score = scoreCorpus(REDACTION_CORPUS, (text) => redactor.redactText(text));
  const sensitiveCount = REDACTION_CORPUS.filter((entry) => entry.kind === "sensitive").length;

  console.log(`redaction corpus: ${REDACTION_CORPUS.length} utterances, ${sensitiveCount} sensitive, ${REDACTION_CORPUS.length - sensitiveCount} look-alikes\n`);
  console.log("Sensitive categories (recall = values removed; exact = utterance redacted exactly as labelled)");
  console.log(table(["category", "utterances", "values", "recall", "exact"], score.sensitive.map((entry) => [entry.category, entry.utterances, entry.values, percent(entry.recall), percent(entry.exact / entry.utterances)])));
  console.log("\nMarkers (precision = markers the corpus expected / markers written; `bank-account` covers IBANs)");
  console.log(table(["marker", "written", "expected", "precision"], score.markers.map((entry) => [entry.marker, entry.emitted, entry.correct, percent(entry.precision)])));
  console.log("\nLook-alikes (kept = utterance left unchanged)");
  console.log(table(["category", "utterances", "kept"], score.lookalike.map((entry) => [entry.category, entry.utterances, percent(entry.keptShare)])));

  const baseline = measure((text) => findPhoneNumbersInText(text, { defaultCountry: "US" }));
  const full = measure((text) => redactor.redactText(text));
  const perCall = measure((text) => createRedactor(settings, CORPUS_EXEMPTIONS).redactText(text));
  console.log(`\nThroughput over the corpus (${SECONDS} s each, one core)`);
  console.log(
    table(
      ["what", "utterances/s", "vs baseline", "p50 µs", "p99 µs"],
      [
        ["baseline: findPhoneNumbersInText alone", Math.round(baseline.perSecond), "1.00×", baseline.p50.toFixed(0), baseline.p99.toFixed(0)],
        ["redactText, all categories", Math.round(full.perSecond), `${(full.perSecond / baseline.perSecond).toFixed(2)}×`, full.p50.toFixed(0), full.p99.toFixed(0)],
        ["createRedactor + redactText (one per utterance)", Math.round(perCall.perSecond), `${(perCall.perSecond / baseline.perSecond).toFixed(2)}×`, perCall.p50.toFixed(0), perCall.p99.toFixed(0)],
      ],
    ),
  );

  const missed = [
    ...score.sensitive.filter((entry) => entry.recall < GOAL).map((entry) => `recall ${entry.category} ${percent(entry.recall)}`),
    ...score.lookalike.filter((entry) => entry.keptShare < GOAL).map((entry) => `look-alikes ${entry.category} ${percent(entry.keptShare)}`),
  ];
  console.log(`\nGoals (recall ≥ 99 % per sensitive category, ≥ 99 % of look-alikes kept per category): ${missed.length === 0 ? "met" : `NOT met: ${missed.join("; ")}`}`);
  for (const failure of score.failures) console.log(`  [${failure.category}] ${failure.text}\n      got:  ${failure.got}\n      want: ${failure.want}`);
  if (missed.length > 0) process.exitCode = 1;
}

main();
