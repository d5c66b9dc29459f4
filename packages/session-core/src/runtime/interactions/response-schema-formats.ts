import { RE2JS } from "re2js";

/**
 * The `format`s a `response_schema` may name (DESIGN §10.8: "a short list"), each checked by a
 * linear-time RE2 pattern, so no answer can make a format check backtrack. Dates and times are
 * also checked against the calendar and the clock (RFC 3339).
 */
const DATE = "(\\d{4})-(\\d{2})-(\\d{2})";
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})(?:\\.\\d+)?(?:[zZ]|[+-](\\d{2}):(\\d{2}))";

function matcher(pattern: string): (value: string) => string[] | null {
  const compiled = RE2JS.compile(`^${pattern}$`);
  return (value) => {
    const match = compiled.matcher(value);
    if (!match.matches()) return null;
    return Array.from({ length: match.groupCount() + 1 }, (_, group) => match.group(group) ?? "");
  };
}

const dateMatch = matcher(DATE);
const timeMatch = matcher(TIME);
const dateTimeMatch = matcher(`${DATE}[tT ]${TIME}`);
const emailMatch = matcher("[^\\s@]+@[^\\s@.]+(?:\\.[^\\s@.]+)+");
const uriMatch = matcher("[A-Za-z][A-Za-z0-9+.\\-]*:\\S*");
const uuidMatch = matcher("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

function isCalendarDate(year: string, month: string, day: string): boolean {
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function isClockTime(
  hour: string,
  minute: string,
  second: string,
  offsetHour = "0",
  offsetMinute = "0",
): boolean {
  return (
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 60 &&
    Number(offsetHour) <= 23 &&
    Number(offsetMinute) <= 59
  );
}

function checkTimeGroups(groups: string[], from: number): boolean {
  const [hour = "", minute = "", second = "", offsetHour, offsetMinute] = groups.slice(from);
  return isClockTime(hour, minute, second, offsetHour || "0", offsetMinute || "0");
}

export const RESPONSE_SCHEMA_FORMATS: Record<string, (value: string) => boolean> = {
  date: (value) => {
    const groups = dateMatch(value);
    return groups !== null && isCalendarDate(groups[1] ?? "", groups[2] ?? "", groups[3] ?? "");
  },
  time: (value) => {
    const groups = timeMatch(value);
    return groups !== null && checkTimeGroups(groups, 1);
  },
  "date-time": (value) => {
    const groups = dateTimeMatch(value);
    return (
      groups !== null &&
      isCalendarDate(groups[1] ?? "", groups[2] ?? "", groups[3] ?? "") &&
      checkTimeGroups(groups, 4)
    );
  },
  email: (value) => emailMatch(value) !== null,
  uri: (value) => uriMatch(value) !== null,
  uuid: (value) => uuidMatch(value) !== null,
};
