/**
 * A code's watch link: the viewer page with the code in its query
 * (`<viewer URL>/?code=<code>`), which prefills the code. The console's QR
 * codes, printed tickets and the CSV export all use this one form.
 */
export function watchLink(viewerUrl: string, code: string): string {
  return `${viewerUrl.replace(/\/+$/, '')}/?code=${encodeURIComponent(code)}`;
}

/**
 * A bought ticket's link in its email: the event's page with the code
 * (`<viewer URL>/?event=<id>&code=<code>`), which plays at once (opening the
 * link is the one press), where a bare `?code=` link waits for "Watch".
 */
export function ticketWatchLink(viewerUrl: string, eventId: string, code: string): string {
  return `${viewerUrl.replace(/\/+$/, '')}/?event=${encodeURIComponent(eventId)}&code=${encodeURIComponent(code)}`;
}

/** `ABCDEFGHJKLM` → `ABCD-EFGH-JKLM`: easier to read aloud and to type (the viewer ignores the dashes). */
export function groupedCode(code: string): string {
  return code.match(/.{1,4}/g)?.join('-') ?? code;
}
