import type { AnswerClass } from "./types";

/**
 * The phrases that give away who answered, scored per class on one utterance of the live transcript. A strong phrase
 * (one only that kind of answerer says) scores 1, a hint 0.5; the classifier adds them up over the utterances.
 * Patterns run on lower-case text with punctuation removed and digits as words ("press 1" → "press one").
 */
type PhraseRule = { answerClass: Exclude<AnswerClass, "fax">; pattern: RegExp; weight: number };

const RULES: PhraseRule[] = [
  // Voicemail greetings (personal and carrier defaults).
  { answerClass: "voicemail", pattern: /\b(you(ve| have)|youve) reached\b/, weight: 0.7 },
  { answerClass: "voicemail", pattern: /\b(leave|leaving) (me |us )?(a |your )?(brief |short |quick |detailed )?(message|name and number|voicemail)\b/, weight: 1 },
  { answerClass: "voicemail", pattern: /\b(cant|can not|cannot|unable to) (take|get to|answer|come to) (your call|the phone)\b/, weight: 1 },
  { answerClass: "voicemail", pattern: /\b(is|am|are) (not available|unavailable|away from)\b/, weight: 0.8 },
  { answerClass: "voicemail", pattern: /\b(record your message|voice ?mail|mailbox|at the (tone|beep)|after the (tone|beep))\b/, weight: 1 },
  { answerClass: "voicemail", pattern: /\b(ill|i will|we will|well) (get back to you|call you back|return your call)\b/, weight: 1 },
  // Phone menus.
  { answerClass: "ivr", pattern: /\b(press|dial|oprima|marque|push) (one|two|three|four|five|six|seven|eight|nine|zero|pound|star|el)\b/, weight: 1 },
  { answerClass: "ivr", pattern: /\b(menu options|main menu|say or (press|enter)|please say|para espanol|extension|directory)\b/, weight: 1 },
  { answerClass: "ivr", pattern: /\b(thank you for calling|thanks for calling|welcome to)\b/, weight: 0.5 },
  { answerClass: "ivr", pattern: /\bfor (billing|appointments|sales|support|customer service|pharmacy|hours)\b/, weight: 0.6 },
  // Call screeners: Google Call Screen, iOS Call Screening, Samsung and carrier assistants.
  { answerClass: "screener", pattern: /\b(screening service|call screen|call assistant|screening this call|google assistant|bixby)\b/, weight: 1.5 },
  { answerClass: "screener", pattern: /\b(say|state|record|tell me) (your name|who you are|who is calling|whos calling)\b/, weight: 1.2 },
  { answerClass: "screener", pattern: /\b(why (you are|youre) calling|reason (for|of) (your call|calling)|what (this|your call) is about)\b/, weight: 1 },
  { answerClass: "screener", pattern: /\b(see if (this person|they|he|she) (is|are) available|get a copy of this conversation|stay on the line)\b/, weight: 1 },
  // Carrier intercepts.
  { answerClass: "intercept", pattern: /\b(not in service|no longer in service|been disconnected|cannot be completed|could not be completed|check the number|not a working number|temporarily out of service|wireless customer)\b/, weight: 1.5 },
  { answerClass: "intercept", pattern: /\b(the number you (have )?(dialed|reached|called)|were sorry|all circuits are busy)\b/, weight: 0.7 },
  // Hold queues.
  { answerClass: "hold-queue", pattern: /\b(please (hold|stay on the line|continue to hold)|your call is (very )?important|in the order (it was|they were) received|next available|estimated wait|all of our (agents|representatives)|currently (assisting|helping) other)\b/, weight: 1.2 },
  { answerClass: "hold-queue", pattern: /\b(thank you for (your patience|holding|waiting)|connect(ing)? your call|transferring)\b/, weight: 0.8 },
  { answerClass: "hold-queue", pattern: /\b(thank you for calling|thanks for calling)\b/, weight: 0.3 },
  // A person: the way people answer a phone, and what they say when nobody talks.
  { answerClass: "human", pattern: /^(hello|hi|hey|yeah|yes|yep|hullo|hola|good (morning|afternoon|evening))\b/, weight: 0.8 },
  { answerClass: "human", pattern: /\b(speaking|hows it going|who(s| is) (this|calling|there)|can i help you|may i help you|how can i help|whats up|residence)\b/, weight: 0.8 },
  { answerClass: "human", pattern: /^(hello|hi) (hello|anyone|is anybody)\b/, weight: 0.5 },
];

const DIGIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];

export function normalizeTranscript(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[’']/g, "")
    .replace(/\d/g, (digit) => ` ${DIGIT_WORDS[Number(digit)]} `)
    .replace(/[^a-z\s]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export type PhraseScores = Partial<Record<Exclude<AnswerClass, "fax">, number>>;

/** Scores of one utterance per class (only classes with a match appear). */
export function scorePhrases(text: string): PhraseScores {
  const normalized = normalizeTranscript(text);
  const scores: PhraseScores = {};
  for (const rule of RULES) {
    if (rule.pattern.test(normalized)) scores[rule.answerClass] = (scores[rule.answerClass] ?? 0) + rule.weight;
  }
  return scores;
}

/** The best machine class of `scores` (everything but `human`) and its score, or null when none matched. */
export function strongestMachineClass(scores: PhraseScores): { answerClass: Exclude<AnswerClass, "fax" | "human">; score: number } | null {
  let best: { answerClass: Exclude<AnswerClass, "fax" | "human">; score: number } | null = null;
  for (const [answerClass, score] of Object.entries(scores) as Array<[Exclude<AnswerClass, "fax">, number]>) {
    if (answerClass === "human") continue;
    if (!best || score > best.score) best = { answerClass, score };
  }
  return best;
}
