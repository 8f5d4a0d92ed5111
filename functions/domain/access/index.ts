/** The access area's public entry: the other areas and the functions import it from here. */
export * from './edge-deny';
export * from './playback-token';
export * from './playback-url';
export * from './preview';
export * from './revocation-feed-builder';
export * from './revocation-feed';
export * from './session-admin';
export * from './user-agent';
export * from './viewer-access';
