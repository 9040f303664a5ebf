/** The built-in redaction categories and the limits of custom patterns (no imports: the console uses them too). */
export const REDACTION_CATEGORIES = ["card", "ssn", "bank-account", "routing-number", "date-of-birth", "email", "phone"] as const;
export type RedactionCategory = (typeof REDACTION_CATEGORIES)[number];

export const CUSTOM_PATTERN_LIMITS = { count: 20, nameLength: 40, patternLength: 300 } as const;
