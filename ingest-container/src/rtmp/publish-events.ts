import Context from 'node-media-server/src/core/context.js';
import type BaseSession from 'node-media-server/src/session/base_session.js';
import { GatedRtmpSession, type SessionGate } from './gated-session';

/**
 * node-media-server announces a publish that started (`postPublish`) and one
 * it finished (`donePublish`: a clean stop, its grace window over, or a cut)
 * on one process-wide emitter; this passes on only the sessions of one
 * server (those of its gate). Returns the unsubscribe.
 */
export function followPublishes(
  gate: SessionGate,
  handlers: { started(session: GatedRtmpSession): void; done(session: GatedRtmpSession): void },
): () => void {
  const ours = (session: BaseSession): session is GatedRtmpSession => session instanceof GatedRtmpSession && session.gate === gate;
  const onPostPublish = (session: BaseSession) => {
    if (ours(session)) handlers.started(session);
  };
  const onDonePublish = (session: BaseSession) => {
    if (ours(session)) handlers.done(session);
  };
  Context.eventEmitter.on('postPublish', onPostPublish);
  Context.eventEmitter.on('donePublish', onDonePublish);
  return () => {
    Context.eventEmitter.off('postPublish', onPostPublish);
    Context.eventEmitter.off('donePublish', onDonePublish);
  };
}
