/**
 * Instants and durations as the deprecation settings write them (ISO 8601), read into
 * milliseconds, and the range every instant must stay within to be formatted, compared and
 * scheduled: every form (code options, TOML, terms) reads them here.
 */

/**
 * The latest instant a `Date` can hold, +275760-09-13T00:00:00Z (ECMA-262, "Time Values and
 * Time Range"); the earliest is its opposite. Beyond it `toISOString` throws a RangeError.
 */
export const MAX_INSTANT_MS = 8.64e15;

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
// Years and months have no fixed length, so a window of `P1M` would be ambiguous.
const DURATION =
  /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d{1,3})?)S)?)?$/;

/** Whether `ms` is an instant a `Date` can hold: finite and within ±{@link MAX_INSTANT_MS}. */
export function isRepresentableInstant(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_INSTANT_MS;
}

/**
 * Milliseconds since the epoch of an ISO 8601 date (midnight UTC) or date-time with an offset;
 * undefined for anything else, a date that does not exist (`2026-02-30`) included. The four
 * digits of the year are taken literally: `0050-01-01` is the year 50, not 1950.
 */
export function parseInstant(text: string): number | undefined {
  const date = DATE.exec(text) ?? DATE_TIME.exec(text);
  if (date === null) return undefined;
  const [, year, month, day, hour = '0', minute = '0', second = '0'] = date;
  // Not Date.UTC(year, …), which reads the years 0 to 99 as 1900 to 1999.
  const calendar = new Date(0);
  calendar.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  if (
    calendar.getUTCMonth() !== Number(month) - 1 ||
    calendar.getUTCDate() !== Number(day) ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59
  )
    return undefined;
  const ms = text.length === 10 ? calendar.getTime() : Date.parse(text);
  return isRepresentableInstant(ms) ? ms : undefined;
}

/** Milliseconds of an ISO 8601 duration of weeks, days, hours, minutes and seconds; undefined otherwise. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null || text === 'P') return undefined;
  const [, weeks = '0', days = '0', hours = '0', minutes = '0', seconds = '0'] =
    match;
  const ms =
    (Number(weeks) * 7 + Number(days)) * DAY_MS +
    Number(hours) * 3_600_000 +
    Number(minutes) * 60_000 +
    Math.round(Number(seconds.replace(',', '.')) * 1000);
  return ms > 0 && Number.isSafeInteger(ms) ? ms : undefined;
}

/** `2026-06-30T00:00:00Z`: an instant as messages and listings show it. */
export function formatInstant(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
