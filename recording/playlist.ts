/**
 * The files an HLS playlist names: URI lines, and `URI="…"` attributes
 * (EXT-X-MAP, EXT-X-MEDIA) of tags. Only relative names are expected, since
 * ffmpeg writes them that way here.
 */
export function referencedFiles(playlist: string): string[] {
  const names: string[] = [];
  for (const raw of playlist.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('#')) {
      names.push(line);
      continue;
    }
    for (const match of line.matchAll(/URI="([^"]+)"/g)) names.push(match[1]!);
  }
  return names;
}

export const isPlaylist = (name: string) => name.endsWith('.m3u8');
