/** The watermark area's public entry: the forensic A/B mark's bit and pattern, reading it back, the accusation and its bound. */
export * from './accusation';
export * from './binomial-tail';
export * from './bit-reader';
export * from './copy-length';
export * from './mark-bit';
export * from './mark-key';
export * from '../../../recording/watermark-pattern';
export * from './placement-search';
export * from './recording-index';
export * from './segment-luma';
