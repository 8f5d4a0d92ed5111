/**
 * A Lambda entry point's handler: `compose` runs at the first invocation (the configuration read,
 * the clients made, the dependencies wired) and its handler is kept for the instance's life. A
 * composition that throws (a configuration that fails to read) fails that invocation only: the next
 * one composes again.
 */
export function handlerOf<H extends (...args: never[]) => unknown>(compose: () => H): H {
  let handler: H | undefined;
  return ((...args: Parameters<H>) => (handler ??= compose())(...args)) as H;
}
