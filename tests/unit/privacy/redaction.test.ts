import { describe, expect, it } from "vitest";
import { createRedactor, customPatternProblem, REDACTION_CATEGORIES } from "@/server/services/privacy/redaction";

const all = { categories: REDACTION_CATEGORIES, patterns: [] };
const exemptions = { phoneNumbers: ["+14155550171", "+12025550100"], emails: ["jane@example.org"] };
const redactor = createRedactor(all, exemptions);

describe("redaction", () => {
  it("cards with a valid Luhn check, written or spoken; not other long numbers", () => {
    expect(redactor.redact("My card number is 4111 1111 1111 1111, expiry next May.")).toEqual({ text: "My card number is [redacted:card], expiry next May.", categories: ["card"] });
    expect(redactor.redactText("card 5500-0000-0000-0004")).toBe("card [redacted:card]");
    expect(redactor.redactText("it's four one one one one one one one one one one one one one one one okay")).toBe("it's [redacted:card] okay");
    expect(redactor.redactText("order 4111 1111 1111 1112")).toBe("order 4111 1111 1111 1112");
  });

  it("SSNs in their written form, or nine digits said to be one; never-issued ranges stay", () => {
    expect(redactor.redactText("my social security number is 536-22-8471.")).toBe("my social security number is [redacted:ssn].");
    expect(redactor.redactText("SSN 536228471")).toBe("SSN [redacted:ssn]");
    expect(redactor.redactText("ticket 666-12-3456")).toBe("ticket 666-12-3456");
  });

  it("bank accounts and routing numbers need their context; routing numbers their checksum", () => {
    expect(redactor.redactText("routing number 021000021 and account number 12345678901")).toBe("routing number [redacted:routing-number] and account number [redacted:bank-account]");
    expect(redactor.redactText("we have 12345678 users")).toBe("we have 12345678 users");
  });

  it("dates of birth only near words about birth; meeting dates stay", () => {
    expect(redactor.redactText("I was born on March 3, 1984.")).toBe("I was born on [redacted:date-of-birth].");
    expect(redactor.redactText("my date of birth is 03/04/1984")).toBe("my date of birth is [redacted:date-of-birth]");
    expect(redactor.redactText("Thursday, November 30, 2026 at 2:30 PM works for me.")).toBe("Thursday, November 30, 2026 at 2:30 PM works for me.");
  });

  it("emails and phone numbers other than the contact's own (and our caller ID)", () => {
    expect(redactor.redactText("write to jane@example.org or bob@corp.example")).toBe("write to jane@example.org or [redacted:email]");
    expect(redactor.redactText("bob at corp dot com")).toBe("[redacted:email]");
    expect(redactor.redactText("call me at (415) 555-0171, or my wife at 415-555-0199, or +44 20 7946 0958")).toBe(
      "call me at (415) 555-0171, or my wife at [redacted:phone], or [redacted:phone]",
    );
    expect(redactor.redactText("Please call me back at +12025550100.")).toBe("Please call me back at +12025550100.");
  });

  it("leaves the call's disclosures as spoken, and numbers that are no valid phone number", () => {
    const identification = "Hello, this is an automated AI assistant calling on behalf of Acme Demo (1127-220730) or 415-555-0199.";
    const withDisclosure = createRedactor(all, { ...exemptions, texts: [identification] });
    expect(withDisclosure.redactText(`${identification} Call 415-555-0199.`)).toBe(`${identification} Call [redacted:phone].`);
    expect(redactor.redactText("Acme Demo (1127-220730)")).toBe("Acme Demo (1127-220730)");
  });

  it("reads national numbers as US numbers and as numbers of the contact's country", () => {
    const ukContact = createRedactor(all, { phoneNumbers: ["+442071234567"], emails: [] });
    expect(ukContact.redactText("my office is 020 7946 0000, my US cell 415-555-0199, and this line, 020 7123 4567")).toBe(
      "my office is [redacted:phone], my US cell [redacted:phone], and this line, 020 7123 4567",
    );
    expect(redactor.redactText("my office is 020 7946 0000")).toBe("my office is 020 7946 0000");
  });

  it("IBANs are bank accounts; a label that names a number as an order keeps it, one that merely comes before it does not", () => {
    expect(redactor.redact("IBAN GB82 WEST 1234 5698 7654 32, thanks")).toEqual({ text: "IBAN [redacted:bank-account], thanks", categories: ["bank-account"] });
    expect(redactor.redactText("order number 4155550199")).toBe("order number 4155550199");
    expect(redactor.redactText("call me about the order at 415-555-0199")).toBe("call me about the order at [redacted:phone]");
    expect(redactor.redactText("I want to pay for my order, 4111 1111 1111 1111")).toBe("I want to pay for my order, [redacted:card]");
  });

  it("only the organization's categories; custom patterns with their own marker", () => {
    const custom = createRedactor({ categories: ["ssn"], patterns: [{ name: "member-id", pattern: "MBR-\\d{6}" }] }, exemptions);
    expect(custom.redactText("card 4111111111111111, member mbr-123456, ssn 536-22-8471")).toBe("card 4111111111111111, member [redacted:member-id], ssn [redacted:ssn]");
    // The organization's own patterns apply as written, even over a date the built-in categories keep.
    const visits = createRedactor({ categories: REDACTION_CATEGORIES, patterns: [{ name: "visit-date", pattern: "\\d{4}-\\d{2}-\\d{2}" }] }, exemptions);
    expect(visits.redactText("visit on 2026-12-02 15:30:00")).toBe("visit on [redacted:visit-date] 15:30:00");
  });

  it("refuses custom patterns that are invalid, empty-matching or backtrack catastrophically", () => {
    expect(customPatternProblem("MBR-\\d{6}")).toBeNull();
    expect(customPatternProblem("(a+)+$")).toMatch(/nests quantifiers/);
    expect(customPatternProblem("a**")).toMatch(/not a valid/);
    expect(customPatternProblem("x*")).toMatch(/empty/);
  });
});
