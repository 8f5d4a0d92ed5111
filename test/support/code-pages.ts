/** Every code of an event, walking `GET …/tokens` with its cursor (1,000 a page); `get` answers a path's JSON body. */
export async function allEventCodes<T extends { id: string }>(get: (path: string) => Promise<{ tokens: T[]; nextCursor: string | null }>, eventId: string): Promise<T[]> {
  const codes: T[] = [];
  let cursor: string | null = null;
  do {
    const page: { tokens: T[]; nextCursor: string | null } = await get(`/api/admin/events/${eventId}/tokens${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`);
    codes.push(...page.tokens);
    cursor = page.nextCursor;
  } while (cursor);
  return codes;
}
