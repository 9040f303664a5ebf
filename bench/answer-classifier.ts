/**
 * The answer classifier on its labelled corpus (issue 37). Every opening of server/simulators/answer-corpus (8 kHz µ-law
 * synthesized in code, with its timed transcript and the carrier AMD result as the Twilio simulator models it) is
 * replayed through the real classification path (AnswerClassifier fed 20 ms frames, transcript utterances and the
 * AMD event at their times). Printed:
 *   - the confusion matrix (rows: the label; columns: the final verdict), accuracy per class and overall;
 *   - time to verdict (when the final class was reached and kept) median / p95 per class; for people, after the end of
 *     their first word; for voicemail with a beep, the share decided by the beep's end and the beep-end error;
 *   - accuracy on the hard cases the issue names;
 *   - beside it, Twilio's AMD alone on the same corpus (its `AnsweredBy` mapped: human, machine_* → voicemail, fax).
 * Goals: people classed as anything else ≤ 1 %, overall ≥ 97 %, human verdict ≤ 1.0 s median after the first word,
 * voicemail (with a beep) decided by the beep's end. Exit code 1 if one is missed.
 *
 * Run: npx tsx bench/answer-classifier.ts   (ANSWER_CORPUS_SEED to vary the corpus, default 37)
 */
import { answerClasses, type AnswerClass } from "@/server/voice/answer-classifier/types";
import { buildCorpus, type Opening } from "@/server/simulators/answer-corpus/corpus";
import { replayOpening } from "@/tests/fixtures/answer-corpus/replay";

const SEED = Number(process.env.ANSWER_CORPUS_SEED ?? 37);
type Outcome = { opening: Opening; predicted: AnswerClass | "none"; settledAtMs: number | null; beepEndMs: number | null; classesSaid: Array<AnswerClass | "none"> };

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
const quantile = (values: number[], q: number) => {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
};
const ms = (value: number) => (Number.isNaN(value) ? "–" : `${Math.round(value)} ms`);
const table = (header: string[], rows: Array<Array<string | number>>) => {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => String(row[column]).length)));
  const line = (cells: Array<string | number>) => `| ${cells.map((cell, column) => String(cell).padEnd(widths[column]!)).join(" | ")} |`;
  return [line(header), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...rows.map(line)].join("\n");
};

function amdClass(answeredBy: string | undefined): AnswerClass | "none" {
  if (answeredBy === "human") return "human";
  if (answeredBy === "fax") return "fax";
  if (answeredBy?.startsWith("machine")) return "voicemail";
  return "none";
}

function confusion(outcomes: Outcome[]) {
  const columns = [...answerClasses, "none"] as const;
  const rows = answerClasses.map((label) => {
    const mine = outcomes.filter((outcome) => outcome.opening.label === label);
    const correct = mine.filter((outcome) => outcome.predicted === label).length;
    return [label, ...columns.map((column) => mine.filter((outcome) => outcome.predicted === column).length || "."), percent(correct / mine.length)];
  });
  return table(["label \\ verdict", ...columns, "accuracy"], rows);
}

const started = performance.now();
const corpus = buildCorpus(SEED);
const builtMs = performance.now() - started;
const classified: Outcome[] = [];
const amdAlone: Outcome[] = [];
const replayStarted = performance.now();
for (const opening of corpus) {
  const replay = replayOpening(opening);
  classified.push({ opening, predicted: replay.final?.answerClass ?? "none", settledAtMs: replay.settledAtMs, beepEndMs: replay.final?.beepEndMs ?? null, classesSaid: replay.verdicts.map((verdict) => verdict.answerClass) });
  const amd = amdClass(opening.amd?.answeredBy);
  amdAlone.push({ opening, predicted: amd, settledAtMs: opening.amd?.atMs ?? null, beepEndMs: null, classesSaid: [amd] });
}
const replayMs = performance.now() - replayStarted;
const audioSeconds = corpus.reduce((sum, opening) => sum + opening.ulaw.length / 8000, 0);

const accuracy = (outcomes: Outcome[]) => outcomes.filter((outcome) => outcome.predicted === outcome.opening.label).length / outcomes.length;
const humansMissed = (outcomes: Outcome[]) => {
  const humans = outcomes.filter((outcome) => outcome.opening.label === "human");
  return humans.filter((outcome) => outcome.predicted !== "human").length / humans.length;
};
/** People given another verdict at any moment, even one revised later (an agent would have acted on it). */
const humansEverMissed = (outcomes: Outcome[]) => {
  const humans = outcomes.filter((outcome) => outcome.opening.label === "human");
  return humans.filter((outcome) => outcome.classesSaid.some((said) => said !== "human")).length / humans.length;
};
/** Openings that are not a person but were called human at some moment (an agent would have started talking to it). */
const othersEverHuman = (outcomes: Outcome[]) => outcomes.filter((outcome) => outcome.opening.label !== "human" && outcome.classesSaid.includes("human"));
const settled = (outcomes: Outcome[], label: AnswerClass) =>
  outcomes.filter((outcome) => outcome.opening.label === label && outcome.predicted === label && outcome.settledAtMs !== null).map((outcome) => outcome.settledAtMs!);
const afterFirstWord = (outcomes: Outcome[]) =>
  outcomes.filter((outcome) => outcome.opening.label === "human" && outcome.predicted === "human" && outcome.opening.firstWordEndMs !== null).map((outcome) => outcome.settledAtMs! - outcome.opening.firstWordEndMs!);
const afterFirstUtterance = (outcomes: Outcome[]) =>
  outcomes.filter((outcome) => outcome.opening.label === "human" && outcome.predicted === "human" && outcome.opening.firstUtteranceEndMs !== null).map((outcome) => outcome.settledAtMs! - outcome.opening.firstUtteranceEndMs!);
const withBeep = (outcomes: Outcome[]) => outcomes.filter((outcome) => outcome.opening.label === "voicemail" && outcome.opening.beepEndMs !== null);
const byBeepEnd = (outcomes: Outcome[]) => {
  const beeps = withBeep(outcomes);
  return beeps.filter((outcome) => outcome.predicted === "voicemail" && outcome.settledAtMs! <= outcome.opening.beepEndMs! + 60).length / beeps.length;
};

console.log(`answer classifier bench — corpus seed ${SEED}: ${corpus.length} openings (${answerClasses.map((label) => `${label} ${corpus.filter((opening) => opening.label === label).length}`).join(", ")}), ${audioSeconds.toFixed(0)} s of audio`);
console.log(`built in ${(builtMs / 1000).toFixed(1)} s; replayed in ${(replayMs / 1000).toFixed(1)} s (${((audioSeconds * 1000) / replayMs).toFixed(0)}× real time on one core)\n`);
console.log("Classifier (audio + transcript + carrier AMD):");
console.log(confusion(classified));
console.log("\nTwilio AMD alone (as the simulator models it):");
console.log(confusion(amdAlone));

const timeRows = answerClasses.map((label) => {
  const mine = settled(classified, label);
  const theirs = settled(amdAlone, label);
  return [label, ms(quantile(mine, 0.5)), ms(quantile(mine, 0.95)), ms(quantile(theirs, 0.5)), ms(quantile(theirs, 0.95))];
});
const firstWord = afterFirstWord(classified);
const amdFirstWord = afterFirstWord(amdAlone);
const firstUtterance = afterFirstUtterance(classified);
const amdFirstUtterance = afterFirstUtterance(amdAlone);
timeRows.push(["human, after the end of the first word", ms(quantile(firstWord, 0.5)), ms(quantile(firstWord, 0.95)), ms(quantile(amdFirstWord, 0.5)), ms(quantile(amdFirstWord, 0.95))]);
timeRows.push(["human, after the end of the first utterance", ms(quantile(firstUtterance, 0.5)), ms(quantile(firstUtterance, 0.95)), ms(quantile(amdFirstUtterance, 0.5)), ms(quantile(amdFirstUtterance, 0.95))]);
console.log("\nTime to the final verdict (from the answer; correct verdicts only):");
console.log(table(["class", "classifier p50", "classifier p95", "AMD alone p50", "AMD alone p95"], timeRows));

const beepErrors = withBeep(classified)
  .filter((outcome) => outcome.beepEndMs !== null)
  .map((outcome) => Math.abs(outcome.beepEndMs! - outcome.opening.beepEndMs!));
const hardTags = [...new Set(corpus.map((opening) => opening.hard).filter((tag): tag is string => tag !== null))];
console.log("\nHard cases:");
console.log(
  table(
    ["case", "openings", "classifier", "AMD alone"],
    hardTags.map((tag) => {
      const mine = classified.filter((outcome) => outcome.opening.hard === tag);
      return [tag, mine.length, percent(accuracy(mine)), percent(accuracy(amdAlone.filter((outcome) => outcome.opening.hard === tag)))];
    }),
  ),
);

const goals = [
  { name: "people classed as anything but human", value: humansMissed(classified), amd: humansMissed(amdAlone), met: humansMissed(classified) <= 0.01, show: percent },
  { name: "people given another verdict at any moment", value: humansEverMissed(classified), amd: humansEverMissed(amdAlone), met: humansEverMissed(classified) <= 0.01, show: percent },
  { name: "overall accuracy", value: accuracy(classified), amd: accuracy(amdAlone), met: accuracy(classified) >= 0.97, show: percent },
  { name: "human verdict after the first word, median", value: quantile(firstWord, 0.5), amd: quantile(amdFirstWord, 0.5), met: quantile(firstWord, 0.5) <= 1000, show: ms },
  { name: "voicemail with a beep decided by the beep's end", value: byBeepEnd(classified), amd: byBeepEnd(amdAlone), met: byBeepEnd(classified) >= 0.97, show: percent },
];
console.log("\nGoals:");
console.log(table(["goal", "classifier", "AMD alone", "met"], goals.map((goal) => [goal.name, goal.show(goal.value), goal.show(goal.amd), goal.met ? "yes" : "NO"])));
console.log(`\nbeep end found on ${beepErrors.length}/${withBeep(classified).length} voicemails with a beep; error median ${ms(quantile(beepErrors, 0.5))}, max ${ms(Math.max(...beepErrors))}`);
const everHuman = othersEverHuman(classified);
console.log(`non-human openings called human at some moment: ${everHuman.length}/${classified.filter((outcome) => outcome.opening.label !== "human").length}${everHuman.length ? ` (${everHuman.map((outcome) => `${outcome.opening.id}${outcome.opening.hard ? ` (${outcome.opening.hard})` : ""} → ${outcome.predicted}`).join(", ")})` : ""}`);
const wrong = classified.filter((outcome) => outcome.predicted !== outcome.opening.label);
if (wrong.length) console.log(`misclassified: ${wrong.map((outcome) => `${outcome.opening.id}${outcome.opening.hard ? ` (${outcome.opening.hard})` : ""} → ${outcome.predicted}`).join(", ")}`);
if (goals.some((goal) => !goal.met)) process.exitCode = 1;
