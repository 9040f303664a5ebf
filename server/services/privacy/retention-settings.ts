/** An organization's retention period, in days after a call ended (docs/compliance.md "Retention"). */
export const RETENTION_DAYS = { min: 1, max: 730 } as const;
