import { call } from '../../harness/http';
import { showStatus, type ShowViewer } from '../../harness/show';
import type { LocalSystem } from '../../harness/local-system';

/**
 * What a viewer and a status page see through a failover: the live playlist polled as a player
 * does (every `everyMs`), each new segment fetched once, and the event's status, with every answer
 * that was not 200 or `live`. `waitForSwitch` measures from a moment (the kill) to the first
 * segment after a new `#EXT-X-DISCONTINUITY` in the live playlist: the other encoder's picture.
 */
export function watchFailover(system: LocalSystem, eventId: string, viewer: ShowViewer, everyMs = 100) {
  const refused: string[] = [];
  const statuses = new Set<string>();
  const fetched = new Set<string>();
  let latest = '';
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const [playlist, status] = await Promise.all([viewer.playlist(), showStatus(system, eventId)]);
      statuses.add(status);
      if (playlist === undefined) refused.push('playlist');
      else {
        latest = playlist;
        for (const uri of playlist.split('\n').filter((line) => line && !line.startsWith('#'))) {
          if (fetched.has(uri)) continue;
          fetched.add(uri);
          const answer = await call('GET', viewer.segmentUrl(uri), { headers: { authorization: `Bearer ${viewer.token}` } });
          if (answer.status !== 200) refused.push(`${uri}: ${answer.status}`);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  const discontinuities = (playlist: string) => playlist.split('#EXT-X-DISCONTINUITY\n').length - 1;
  const segmentsAfterLastDiscontinuity = (playlist: string) =>
    (playlist.split('#EXT-X-DISCONTINUITY\n').at(-1) ?? '').split('\n').filter((line) => line && !line.startsWith('#')).length;
  return {
    refused,
    statuses,
    latest: () => latest,
    discontinuities: () => discontinuities(latest),
    /** Ms from `since` until the live playlist has a new discontinuity with a segment after it. */
    async waitForSwitch(since: number, before: number, timeoutMs = 20_000): Promise<number> {
      while (Date.now() - since < timeoutMs) {
        if (discontinuities(latest) > before && segmentsAfterLastDiscontinuity(latest) > 0) return Date.now() - since;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`no switch within ${timeoutMs} ms`);
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
