import { DateTime } from "luxon";
import { locateNumber } from "@/server/services/compliance/area-code-regions";
import { NUMBER_HEALTH_RULE } from "./health-rule";

/**
 * The stratum the health rule compares a call in: where the contact is (their number's US state or Canadian
 * province from its area code, else its country, else `other`) and the 3-hour band of their local time when the call
 * was dialed (`US-NY|3` = New York, 9:00–11:59). People answer differently by place and hour; comparing a number
 * with its peers within the same strata keeps a number that calls a low-answering state at dinner time from looking
 * worse than one that calls elsewhere in the morning.
 */
export function callStratum(params: { contactPhoneNumber: string; timezone: string | null; at: Date }): string {
  const location = locateNumber(params.contactPhoneNumber);
  const region = location.regions[0] ?? location.country ?? "other";
  const local = params.timezone ? DateTime.fromJSDate(params.at, { zone: params.timezone }) : null;
  const hour = local?.isValid ? local.hour : params.at.getUTCHours();
  return `${region}|${Math.floor(hour / NUMBER_HEALTH_RULE.hourBandHours)}`;
}

/** The UTC day (`YYYY-MM-DD`) a call counts on: the day it was dialed. */
export function statsDayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}
