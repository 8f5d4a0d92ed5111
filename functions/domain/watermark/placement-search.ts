import { boxDownscale, fitLevels, sampleRegion, WORK_HEIGHT, WORK_WIDTH, type LumaFrame, type Placement } from './bit-reader';

export interface PlacementSearch {
  /** Pairs of (copy, original) mean pictures of the same segments: a few with content that moves are enough. */
  pairs: readonly { copy: LumaFrame; original: LumaFrame }[];
  /** The smallest share of the original's width the copy may show (a restreamer's crop); default 0.9. */
  minScale?: number;
}

/**
 * Where the copy's picture lies in the original's: the uniform crop (scale and corner) under which
 * the copy best fits the original, once brightness and contrast are fitted. Coarse to fine: a grid
 * of 1 % of scale and 0.5 % of position, then two finer grids around the best, a few hundred
 * thousand samples in all. One aspect ratio: a copy stretched to another one is not searched.
 */
export function findPlacement(search: PlacementSearch): Placement {
  const minScale = search.minScale ?? 0.9;
  const copies = search.pairs.map((pair) => boxDownscale(pair.copy, WORK_WIDTH, WORK_HEIGHT));
  const cost = (placement: Placement) =>
    search.pairs.reduce((sum, pair, i) => sum + fitLevels(copies[i]!, sampleRegion(pair.original, placement, WORK_WIDTH, WORK_HEIGHT)).residual, 0);
  let best = { placement: { scale: 1, left: 0, top: 0 }, cost: Infinity };
  let grid = { scales: range(minScale, 1, 0.01), step: 0.005, around: null as Placement | null };
  for (let round = 0; round < 3; round++) {
    for (const scale of grid.scales) {
      for (const left of offsets(scale, grid.step, grid.around?.left)) {
        for (const top of offsets(scale, grid.step, grid.around?.top)) {
          const placement = { scale, left, top };
          const c = cost(placement);
          if (c < best.cost) best = { placement, cost: c };
        }
      }
    }
    const { scale } = best.placement;
    const fine = grid.step / 5;
    grid = { scales: range(Math.max(minScale, scale - fine * 10), Math.min(1, scale + fine * 10), fine * 2), step: fine, around: best.placement };
  }
  return best.placement;
}

/** Corners that keep the region inside the frame: all of them, or those within 5 steps of a coarser best. */
function offsets(scale: number, step: number, around: number | undefined): number[] {
  const last = Math.max(0, 1 - scale);
  if (around === undefined) return range(0, last, step);
  return range(Math.max(0, around - 5 * step), Math.min(last, around + 5 * step), step);
}

function range(from: number, to: number, step: number): number[] {
  const values: number[] = [];
  for (let value = from; value <= to + step / 2; value += step) values.push(Math.min(value, to));
  return values;
}
