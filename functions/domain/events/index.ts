/** The events area's public entry: the other areas and the functions import it from here. */
export * from './event-admin';
export * from './event-store';
export * from './event-views';
export * from './sale';
export * from './stream-reports';
export * from './event-inputs';
export * from './geo';
export * from './countries';
export * from './backup-ingest';
