// Forensic A/B watermark at the edge (docs/watermark-design.md), in the dialect of validate-request.js,
// into which it is pasted (a CloudFront Function imports nothing); it uses that file's `kvs` and `hmac`.
// test/unit/watermark-edge-choice.test.ts holds it to functions/domain/watermark/mark-bit.ts.
// Playlists of a watermarked part name <part>_<n>[.<v>].w.ts; storage holds .a.ts and .b.ts. The
// version is bit n mod 256 of HMAC(w:<eid>, "wm1.<sid>.<part>.<n div 256>"): per session and moment,
// the same in every rendition, no KeyValueStore entry per viewer. Null: a version named directly
// (refused, or a restreamer would fetch every segment as A and carry no mark).
const WM_SEGMENT = /\/([A-Za-z0-9_-]+)_([0-9]{1,9})(\.[0-9]+)?\.([wab])\.ts$/;

async function markedUri(uri, eid, sid) {
  const m = WM_SEGMENT.exec(uri);
  if (!m) return uri;
  if (m[4] !== 'w') return null;
  const n = parseInt(m[2], 10);
  // Awaited apart: njs (and cloudfront-js-2.0) refuse `await` inside call arguments.
  const key = await kvs.get('w:' + eid);
  const d = hmac(Buffer.from(key, 'base64url'), 'wm1.' + sid + '.' + m[1] + '.' + Math.floor(n / 256));
  return uri.slice(0, -4) + ((d[(n % 256) >> 3] >> (n % 8)) & 1 ? 'b' : 'a') + '.ts';
}
