/** Drops an event's cached manifests and segments from the delivery layer (a CDN invalidation in AWS). */
export interface MediaCache {
  clear(eventId: string): Promise<void>;
}
