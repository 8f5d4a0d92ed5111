/**
 * One event's page, without the DOM: the event as last read, its re-reads (after an action, by the page's
 * poll, for the figures), and the actions on it that call the API. Re-reads follow the newest-answer rule:
 * a poll's answer is dropped once a re-read began after it, and an action's re-read once a later one began.
 */
import type { adminApi, EventDetail, EventTransition } from '../api';
import { listeners } from './listeners';
import { newestAnswer } from './newest-answer';

export type EventDetailApi = Pick<typeof adminApi, 'getEvent' | 'transition' | 'deleteEvent' | 'cancelEvent' | 'rotateIngestKey' | 'clearCache' | 'requestOnAir'>;

/** Which parts of the page to redraw. The OBS fields only after an action (a revealed key or a selection would be lost). */
export interface EventParts {
  header: boolean;
  stats: boolean;
  obs: boolean;
  encoder: boolean;
}

export const ALL_PARTS: EventParts = { header: true, stats: true, obs: true, encoder: true };

const headerData = (e: EventDetail) =>
  JSON.stringify([e.title, e.status, e.isActive, e.isArchived, e.startsAt, e.endsAt, e.accessWindowHours, e.description, e.cancelled, e.geo]);
/** The figures: the codes' and the sale's (with its link), drawn together. */
const statsData = (e: EventDetail) => JSON.stringify([e.stats, e.sales, e.viewerUrl]);
const reportData = (e: EventDetail) => JSON.stringify([e.ingest?.video, e.ingest?.keyframeWarning, e.ingest?.refusals, e.ingest?.encoders]);

/** The parts whose data differ: only those are redrawn, so a button is never swapped under a pointer. */
export function changedParts(previous: EventDetail, fresh: EventDetail): EventParts {
  return {
    header: headerData(previous) !== headerData(fresh),
    stats: statsData(previous) !== statsData(fresh),
    obs: false,
    encoder: reportData(previous) !== reportData(fresh),
  };
}

export function eventDetailModel(options: {
  eventId: string;
  api: EventDetailApi;
  /** The event as first read. */
  event: EventDetail;
  /** Whether the page is still the one shown (an answer after it left is dropped). */
  current: () => boolean;
}) {
  const { eventId, api, current } = options;
  let event = options.event;
  const answers = newestAnswer();
  const changes = listeners<EventParts>();
  const took = (fresh: EventDetail, parts: EventParts) => {
    event = fresh;
    changes.emit(parts);
  };

  return {
    event: () => event,
    subscribe: changes.subscribe,
    /** Reads the event after an action and redraws every part; false when its answer was dropped. Throws the API's error. */
    async refresh(): Promise<boolean> {
      const newest = answers.begin();
      const fresh = await api.getEvent(eventId);
      if (!current() || !newest()) return false;
      took(fresh, ALL_PARTS);
      return true;
    },
    /** The page's poll: status, figures and the encoder report change while the page is open. */
    async poll(): Promise<void> {
      const newest = answers.follow();
      const fresh = await api.getEvent(eventId);
      if (!current() || !newest()) return;
      took(fresh, changedParts(event, fresh));
    },
    /** The figures only (the live sessions' count changed). */
    async refreshFigures(): Promise<void> {
      const fresh = await api.getEvent(eventId);
      if (current()) took(fresh, { header: false, stats: true, obs: false, encoder: false });
    },
    transition: (transition: EventTransition) => api.transition(eventId, transition),
    remove: () => api.deleteEvent(eventId),
    /** Starts the cancellation: the background job that refunds, revokes and tells the buyers. */
    cancel: (reason: string) => api.cancelEvent(eventId, reason),
    rotateKey: () => api.rotateIngestKey(eventId),
    switchOnAir: (role: 'primary' | 'backup') => api.requestOnAir(eventId, role),
    clearCache: () => api.clearCache(eventId),
  };
}

export type EventDetailModel = ReturnType<typeof eventDetailModel>;
