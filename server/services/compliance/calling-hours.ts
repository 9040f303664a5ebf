import { getConfig } from "@/server/config/env";
import type { TGetCallingHoursResponse } from "@/server/routers/organizations/get-calling-hours.schema";
import { COUNTRY_RULES, FEDERAL_RULE, STATE_RULES } from "./calling-rules";

/**
 * The calling hours the dial gate enforces (quiet-hours.ts), for the Compliance page: whether they are on in this
 * deployment (`COMPLIANCE_QUIET_HOURS`) and every rule — federal first, then Canada, then the states by name. The same
 * rules for every organization: no organization setting changes them.
 */
export function listCallingHours(): TGetCallingHoursResponse {
  const rules = [FEDERAL_RULE, ...Object.values(COUNTRY_RULES), ...Object.values(STATE_RULES).sort((a, b) => a.name.localeCompare(b.name))];
  return {
    enforced: getConfig().COMPLIANCE_QUIET_HOURS,
    rules: rules.map((rule) => ({
      jurisdiction: rule.jurisdiction,
      name: rule.name,
      week: [...rule.week],
      closedOnHolidays: rule.closedOnHolidays,
      attemptCap: rule.attemptCap,
      notes: rule.notes ?? null,
    })),
  };
}
