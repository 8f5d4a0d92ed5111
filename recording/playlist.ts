/**
 * The stored files an HLS playlist refers to: URI lines, and `URI="…"`
 * attributes (EXT-X-MAP, EXT-X-MEDIA) of tags; a watermarked segment's name
 * (`.w.ts`) stands for its two stored versions (`.a.ts`, `.b.ts`). Only
 * relative names are expected, since ffmpeg writes them that way here.
 */
export function referencedFiles(playlist: string): string[] {
  const names: string[] = [];
  for (const raw of playlist.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('#')) {
      names.push(...storedFilesOf(line));
      continue;
    }
    for (const match of line.matchAll(/URI="([^"]+)"/g)) names.push(...storedFilesOf(match[1]!));
  }
  return names;
}

export const isPlaylist = (name: string) => name.endsWith('.m3u8');

/** A watermarked segment as every playlist and the recording index name it: `<part>_<n>[.<v>].w.ts`. */
const MARKED_NAME = /\.w\.ts$/;

/**
 * The files stored for a name playlists give: a watermarked segment is stored as version A
 * (`.a.ts`) and version B (`.b.ts`), and the edge serves one of them for the `.w.ts` a player asks for.
 */
export function storedFilesOf(name: string): string[] {
  return MARKED_NAME.test(name) ? [name.replace(MARKED_NAME, '.a.ts'), name.replace(MARKED_NAME, '.b.ts')] : [name];
}

/** The name playlists give the segment whose version A ffmpeg wrote as `<…>.a.ts`; any other name unchanged. */
export const playlistNameOf = (file: string) => file.replace(/\.a\.ts$/, '.w.ts');
