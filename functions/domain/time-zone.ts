/**
 * Times as the organiser reads them: an IANA time zone (what the browser
 * reports, e.g. `Europe/Berlin`) turns UTC instants into ISO 8601 with that
 * zone's offset at each instant (summer time included), and names the day.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True for a time zone this runtime knows (IANA names such as `America/New_York`, and `UTC`). */
export function isTimeZone(value: string): boolean {
  try {
    formatterOf(value);
    return true;
  } catch {
    return false;
  }
}

function partsIn(instant: Date, timeZone: string) {
  const parts = Object.fromEntries(formatterOf(timeZone).formatToParts(instant).map((part) => [part.type, part.value]));
  // `GMT+01:00`, or plain `GMT` at offset zero.
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName!.slice(3);
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}:${parts.second}`, offset };
}

/** `2026-11-24T12:00:00.000Z` in `Europe/Berlin` → `2026-11-24T13:00:00.000+01:00`. */
export function isoInTimeZone(iso: string, timeZone: string): string {
  const instant = new Date(iso);
  const { date, time, offset } = partsIn(instant, timeZone);
  const millis = String(instant.getUTCMilliseconds()).padStart(3, '0');
  return `${date}T${time}.${millis}${offset}`;
}

/** The calendar day (`2026-11-24`) of an instant in a time zone. */
export function dayInTimeZone(instant: Date, timeZone: string): string {
  return partsIn(instant, timeZone).date;
}

/** `2026-11-24T19:30:00Z` in `Europe/Berlin` → `2026-11-24 20:30 (UTC+01:00, Europe/Berlin)`: the wall time with its offset, as an email shows it. */
export function readableInTimeZone(iso: string, timeZone: string): string {
  const { date, time, offset } = partsIn(new Date(iso), timeZone);
  return `${date} ${time.slice(0, 5)} (UTC${offset}${timeZone === 'UTC' ? '' : `, ${timeZone}`})`;
}
