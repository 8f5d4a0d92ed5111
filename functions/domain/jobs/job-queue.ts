import * as z from 'zod';
import { recordId } from '../inputs';

/** Lanes one job may have at most (each is one chain of step messages). */
export const MAX_LANES = 16;

/** The body of one queue message: step `step` of lane `lane` of job `jobId`. */
export const stepMessage = z.strictObject({
  jobId: recordId,
  lane: z.number().int().min(0).max(MAX_LANES - 1),
  step: z.number().int().min(0),
});
export type StepMessage = z.infer<typeof stepMessage>;

/** The queue of job steps (SQS in AWS and locally). */
export interface JobQueue {
  send(messages: StepMessage[]): Promise<void>;
}

/** One delivery of a step message, as the worker got it. */
export interface Delivery {
  /** How many times the message was handed out, this time included (SQS's ApproximateReceiveCount). */
  attempt: number;
  /** Milliseconds left before the worker is stopped. */
  remainingMs(): number;
  /** Hands the message out again after `seconds` rather than after the queue's visibility timeout. */
  retryIn(seconds: number): Promise<void>;
}
