/**
 * The in-memory stores hand records in and out as copies, like items over the wire: a caller
 * that changes a record changes nothing stored.
 */
export const copy = <T>(value: T): T => structuredClone(value);
