/** Date and time helpers shared by both pages. Pure: no DOM, no clock unless passed in. */

// dateStyle/timeStyle cannot be combined with timeZoneName, hence the parts.
const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});

/** `12 Dec 2026, 19:30 GMT+1` in the reader's locale and time zone (named, so a shared link is not misread); `—` for null. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '—' : dateTime.format(date);
}

const date = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/** `12 Dec 2026` in the reader's locale and time zone; `—` for null. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const value = new Date(iso);
  return Number.isNaN(value.getTime()) ? '—' : date.format(value);
}

/** The value an `<input type="datetime-local">` shows for an ISO instant, in local time. */
export function toDateTimeLocal(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

/** The ISO UTC instant of a `datetime-local` value (read as local time); null when empty or invalid. */
export function fromDateTimeLocal(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export interface CountdownParts {
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** Whole days, hours, minutes and seconds left in `ms` (rounded up to the next second, never negative). */
export function countdownParts(ms: number): CountdownParts {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return {
    days: Math.floor(total / 86_400),
    hours: Math.floor((total % 86_400) / 3_600),
    minutes: Math.floor((total % 3_600) / 60),
    seconds: total % 60,
  };
}

/** `2 days, 3 hours, 4 minutes` for screen readers: the two largest non-zero units. */
export function describeCountdown(ms: number): string {
  const parts = countdownParts(ms);
  const units: [number, string][] = [
    [parts.days, 'day'],
    [parts.hours, 'hour'],
    [parts.minutes, 'minute'],
    [parts.seconds, 'second'],
  ];
  const shown = units.filter(([n]) => n > 0).slice(0, 2);
  if (shown.length === 0) return 'now';
  return shown.map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`).join(', ');
}
