/** The watermark area's public entry: the forensic A/B mark's bit, the accusation and its bound. */
export * from './accusation';
export * from './binomial-tail';
export * from './copy-length';
export * from './mark-bit';
