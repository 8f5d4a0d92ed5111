/** Watch links as the console shows them: the viewer page is on the console's own origin (`/` beside `/admin/`). */
import { watchLink } from '../../../functions/domain/watch-link';

export { groupedCode } from '../../../functions/domain/watch-link';

export function consoleWatchLink(code: string): string {
  return watchLink(location.origin, code);
}
