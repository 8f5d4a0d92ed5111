/** The audience area's public entry: the other areas and the functions import it from here. */
export * from './audience-changes';
export * from './audience-recorder';
export * from './audience-report';
export * from './audience-store';
export * from './quantile-sketch';
export * from './leak-trace';
export * from './trace-candidates';
