import creditCardType from "credit-card-type";
import { electronicFormatIBAN, isValidIBAN } from "ibantools";

/**
 * The checks a number must pass to be redacted as what it looks like. Card brands (issuer prefixes and lengths) come
 * from braintree's credit-card-type and IBANs (country, length, BBAN structure, mod-97) from ibantools; Luhn, the ABA
 * checksum and the SSA's rules are a few lines each, written here.
 */

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A card number: Luhn, and a brand's prefix with one of that brand's lengths (a 16-digit order number starting 9 is no card). */
export function isCardNumber(digits: string): boolean {
  if (digits.length < 12 || digits.length > 19 || !luhnValid(digits)) return false;
  return creditCardType(digits).some((type) => type.lengths.includes(digits.length));
}

export function abaValid(digits: string): boolean {
  if (!/^\d{9}$/.test(digits)) return false;
  const d = [...digits].map(Number);
  return (3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!)) % 10 === 0;
}

/**
 * An SSN the SSA could have issued (area 000, 666 and 900–999, group 00 and serial 0000 never were), or an ITIN
 * (area 9xx with group 50–65, 70–88, 90–92 or 94–99), which is redacted as `ssn` too.
 */
export function ssnValid(area: string, group: string, serial: string): boolean {
  if (group === "00" || serial === "0000") return false;
  if (area[0] === "9") {
    const g = Number(group);
    return (g >= 50 && g <= 65) || (g >= 70 && g <= 88) || (g >= 90 && g <= 92) || g >= 94;
  }
  return area !== "000" && area !== "666";
}

/** Letters and digits, each optionally after one space or dash, starting like an IBAN (country, check digits). */
const IBAN_CANDIDATE = /\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]){8,30}/gi;

/** IBANs in the text, written grouped or not, in any case; the longest valid prefix of each candidate. */
export function findIbans(text: string): Array<{ start: number; end: number }> {
  const found: Array<{ start: number; end: number }> = [];
  const pattern = new RegExp(IBAN_CANDIDATE);
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const raw = match[0];
    pattern.lastIndex = match.index + 1;
    // The candidate may run on into the next words ("… 7466 and"): try it shorter until it is a valid IBAN.
    for (let end = raw.length; end >= 12; end--) {
      if (!/[A-Z0-9]/i.test(raw[end - 1]!)) continue;
      const electronic = electronicFormatIBAN(raw.slice(0, end));
      if (electronic && isValidIBAN(electronic)) {
        found.push({ start: match.index, end: match.index + end });
        pattern.lastIndex = match.index + end;
        break;
      }
    }
  }
  return found;
}
