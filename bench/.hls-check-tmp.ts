import { spawn } from 'node:child_process';
import { startLocalSystem } from '/work/main/test/support/local-system';
const system = await startLocalSystem();
try {
  const api = system.urls.api!;
  console.log(system.urls);
  const login = await fetch(`${api}/api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: system.adminPassword }) });
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  const call = (path: string, method = 'GET', body?: unknown) => fetch(`${api}${path}`, { method, headers: { 'content-type': 'application/json', cookie }, body: body === undefined ? undefined : JSON.stringify(body) }).then((r) => r.json());
  const now = Date.now();
  const event = await call('/api/admin/events', 'POST', { title: 'x', startsAt: new Date(now - 3600e3).toISOString(), endsAt: new Date(now + 3600e3).toISOString() });
  const details = await call(`/api/admin/events/${event.id}`);
  console.log(JSON.stringify(details).slice(0, 600));
  const { tokens } = await call(`/api/admin/events/${event.id}/tokens`, 'POST', { count: 1 });
  const grant = await fetch(`${api}/api/tokens/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: tokens[0].code }) }).then((r) => r.json());
  const ingestKey = details.ingestKey ?? details.event?.ingestKey ?? event.ingestKey;
  const target = `${system.urls.rtmp}/${details.ingest.streamKey}`;
  console.log('publishing to', target);
  const ff = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25', '-t', '12', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-f', 'flv', target], { stdio: 'inherit' });
  const manifest = `${system.urls.media}${grant.streamPath}index.m3u8`;
  for (let i = 0; i < 30; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const r = await fetch(manifest, { headers: { authorization: `Bearer ${grant.playbackToken}` } });
    if (r.status === 200) {
      const text = await r.text();
      console.log('manifest', r.status, r.headers.get('content-type'), r.headers.get('cache-control'));
      console.log(text);
      const seg = text.split('\n').find((l) => l && !l.startsWith('#'))!;
      const s = await fetch(new URL(seg, manifest), { headers: { authorization: `Bearer ${grant.playbackToken}` } });
      console.log('segment', seg, s.status, s.headers.get('content-type'), s.headers.get('cache-control'), (await s.arrayBuffer()).byteLength);
      break;
    }
    if (i % 4 === 0) console.log('manifest status', r.status);
  }
  ff.kill();
} finally {
  await system.stop();
}
