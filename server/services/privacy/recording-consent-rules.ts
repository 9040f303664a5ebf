/**
 * Where recording a phone call needs the consent of every party, so the callee must be told the call is recorded
 * (docs/compliance.md has this table; a unit test keeps the two in step). Keys are ISO 3166-2 codes as
 * `locateNumber` returns them from the number's area code. Not legal advice: compiled from public references (the
 * statutes cited), to be reviewed by counsel. Where courts disagree (Delaware, Michigan), the stricter reading is kept.
 */
export const ALL_PARTY_CONSENT_JURISDICTIONS: ReadonlyArray<{ code: string; name: string; source: string }> = [
  { code: "US-CA", name: "California", source: "Cal. Penal Code § 632, § 632.7 (cellular and cordless calls)" },
  { code: "US-CT", name: "Connecticut", source: "Conn. Gen. Stat. § 52-570d (telephone calls, civil liability)" },
  { code: "US-DE", name: "Delaware", source: "Del. Code tit. 11, § 1335(a)(4) (privacy statute; courts also read the one-party wiretap law § 2402)" },
  { code: "US-FL", name: "Florida", source: "Fla. Stat. § 934.03" },
  { code: "US-IL", name: "Illinois", source: "720 ILCS 5/14-2 (Illinois eavesdropping statute, as amended 2014)" },
  { code: "US-MD", name: "Maryland", source: "Md. Code, Cts. & Jud. Proc. § 10-402" },
  { code: "US-MA", name: "Massachusetts", source: "Mass. Gen. Laws ch. 272, § 99" },
  { code: "US-MI", name: "Michigan", source: "Mich. Comp. Laws § 750.539c (courts differ on whether a participant may record)" },
  { code: "US-MT", name: "Montana", source: "Mont. Code Ann. § 45-8-213" },
  { code: "US-NV", name: "Nevada", source: "Nev. Rev. Stat. § 200.620 (telephone calls; Lane v. Allstate, 1998)" },
  { code: "US-NH", name: "New Hampshire", source: "N.H. Rev. Stat. § 570-A:2" },
  { code: "US-PA", name: "Pennsylvania", source: "18 Pa. Cons. Stat. § 5703, § 5704" },
  { code: "US-WA", name: "Washington", source: "Wash. Rev. Code § 9.73.030" },
];

const CODES = new Set(ALL_PARTY_CONSENT_JURISDICTIONS.map((entry) => entry.code));

/** The all-party-consent jurisdictions among these regions (an area code spanning several states counts each). */
export function allPartyConsentJurisdictions(regions: readonly string[]): string[] {
  return regions.filter((region) => CODES.has(region));
}
