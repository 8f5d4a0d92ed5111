/** The codes area's public entry: the other areas and the functions import it from here. */
export * from './access-code';
export * from './code-admin';
export * from './code-export';
export * from './code-filter';
export * from './buyer-codes';
export * from './code-revocation';
export * from './code-store';
export * from './code-views';
export * from './session-presence';
export * from './watch-link';
export * from './event-activation';
export * from './code-inputs';
export * from './session-slots';
