// Forensic A/B watermark at the edge (docs/watermark-design.md), in the dialect of validate-request.js,
// into which it is pasted (a CloudFront Function imports nothing); it uses that file's `kvs` and `hmac`.
// test/unit/watermark-edge-choice.test.ts holds it to functions/domain/watermark/mark-bit.ts.
// Playlists of a watermarked part name <moment>[.<v>].w.ts; storage holds .a.ts and .b.ts. The
// version is a bit of HMAC(w:<eid>, "wm1.<sid>.<moment>"): per session and moment, the same in every
// rendition, and no KeyValueStore entry per viewer. Null: a version named directly (refused, or a
// restreamer would fetch every segment as A and carry no mark).
const WM_SEGMENT = /\/([A-Za-z0-9_-]+)(\.[0-9]+)?\.([wab])\.ts$/;

async function markedUri(uri, eid, sid) {
  const m = WM_SEGMENT.exec(uri);
  if (!m) return uri;
  if (m[3] !== 'w') return null;
  const key = Buffer.from(await kvs.get('w:' + eid), 'base64url');
  return uri.slice(0, -4) + (hmac(key, 'wm1.' + sid + '.' + m[1])[0] & 1 ? 'b' : 'a') + '.ts';
}
