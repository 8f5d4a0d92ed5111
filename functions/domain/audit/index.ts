/** The audit area's public entry: the other areas and the functions import it from here. */
export * from './audit-actions';
export * from './audit-log';
export * from './audit-store';
