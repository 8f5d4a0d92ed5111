/**
 * The export files port: a CSV written a part at a time into one object
 * (S3 multipart upload), read through a short-lived download link.
 * Adapters raise nothing from their SDK but plain errors.
 */
export interface ExportFiles {
  /** Starts a file at `key` (downloaded as `fileName`); its upload id. */
  begin(args: { key: string; fileName: string }): Promise<string>;
  /**
   * Writes part `part` (1..10,000); the same part written again replaces it. Every part but the last
   * holds at least 5 MiB. The part's tag, which `complete` is given.
   */
  writePart(args: { key: string; uploadId: string; part: number; body: Uint8Array }): Promise<string>;
  /** Joins the parts (their numbers and tags, in order) into the file; done already is no error. Its size in bytes. */
  complete(args: { key: string; uploadId: string; parts: { part: number; tag: string }[] }): Promise<number>;
  /** A link that downloads the file as `fileName` for `seconds`. */
  downloadUrl(args: { key: string; fileName: string; seconds: number }): Promise<string>;
}
