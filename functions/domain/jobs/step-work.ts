/**
 * The loop inside one job step: small units of work one after another (a slice of codes, a page of
 * them) from the lane's position, until the step's work is done, its time is short, or a unit
 * fails. What was done until then is the step's result: the runner commits it with the lane's new
 * position and sends the next step, which goes on from there. A step that cannot do even its first
 * unit throws, and is tried again; only a unit that keeps failing, with no progress, fails the job.
 */

export interface UnitResult<P> {
  /** Items this unit did (the job's `done` grows by them). */
  items: number;
  /** The position after the unit. */
  next: P;
  /** The unit ended the step's work. */
  end: boolean;
}

export interface WorkDone<P> {
  items: number;
  /** Where the next step goes on from. */
  position: P;
  /** The step's work is done (not cut short by time, a failing unit or `maxItems`). */
  end: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Runs `unit` from `from` until a unit ends the work, `timeLeft()` (ms) runs out, `maxItems` are done,
 * or a unit throws after others succeeded; at most `itemsPerSecond` (the lane's pace). The first unit
 * always runs: a step that could do nothing would make no progress.
 */
export async function workUntilShort<P>(args: {
  from: P;
  timeLeft: () => number;
  itemsPerSecond: number;
  maxItems?: number;
  unit: (position: P) => Promise<UnitResult<P>>;
}): Promise<WorkDone<P>> {
  const started = Date.now();
  let position = args.from;
  let items = 0;
  for (let units = 0; ; units++) {
    if (units > 0 && (args.timeLeft() <= 0 || items >= (args.maxItems ?? Infinity))) return { items, position, end: false };
    let result: UnitResult<P>;
    try {
      result = await args.unit(position);
    } catch (error) {
      // The next step starts at this unit: it fails there at once, and is tried again.
      if (units > 0) return { items, position, end: false };
      throw error;
    }
    items += result.items;
    position = result.next;
    await sleep(Math.min(started + (items / args.itemsPerSecond) * 1000 - Date.now(), args.timeLeft()));
    if (result.end) return { items, position, end: true };
  }
}
