/**
 * Rate limits count in fixed windows aligned to the clock. A test that must
 * see N hits land in one window waits, if the current window is about to
 * close, for the next one to begin.
 */
export async function withinOneWindow(windowSeconds: number, neededSeconds = 5): Promise<void> {
  const intoWindow = (Date.now() / 1000) % windowSeconds;
  const left = windowSeconds - intoWindow;
  if (left < neededSeconds) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 50));
}
