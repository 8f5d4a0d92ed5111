/** The streams area's public entry: the other areas and the functions import it from here. */
export * from './cache-clearing';
export * from './media-cache';
export * from './rtmp-access';
export * from './stream-lease';
export * from './stream-inputs';
