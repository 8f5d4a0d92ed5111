/**
 * The newest-answer rule, the one place it is written: of requests for the same thing (a page of a list, the
 * event), only the answer to the newest one is shown; an answer to a request older than the newest is dropped,
 * so a slow answer never draws over a newer one (a page turned while a refresh was still answering).
 */
export interface NewestAnswer {
  /** A request that supersedes every earlier one: the check says whether it is still the newest. */
  begin(): () => boolean;
  /** A background request (a poll) that supersedes none: its check fails once a request began after it. */
  follow(): () => boolean;
}

export function newestAnswer(): NewestAnswer {
  let asks = 0;
  const checkFor = (ours: number) => () => ours === asks;
  return {
    begin: () => checkFor(++asks),
    follow: () => checkFor(asks),
  };
}
