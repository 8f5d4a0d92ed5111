import { areaHandler } from '../http/area-handler';
import { json } from '../http/responses';
import { authorizeRtmp } from '../domain/rtmp-access';

export const handler = areaHandler('rtmp-callback', {
  'POST /api/internal/rtmp-auth': async ({ app, body }) => json(200, await authorizeRtmp(app, body)),
});
