/**
 * A refusal the HTTP layer makes on its own, before or beside the domain:
 * malformed JSON, CSRF, the route guard, an unknown route. Domain refusals are
 * domain errors (`functions/domain/errors.ts`); `error-table.ts` renders both.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
