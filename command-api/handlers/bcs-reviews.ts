import { DomainError } from '../../domain/errors.ts';
import {
  bcsReviewDecider,
  bcsReviewStream,
  bcsReviewView,
  type BcsDecision,
  type BcsReviewState,
  type BcsReviewView,
} from '../../domain/pet-analyses/bcs-review.ts';
import { handleCommand, stateOf, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { ANALYSIS_WAIT_MS } from './pet-analyses.ts';

const POLL_MS = 25;
type Open = Exclude<BcsReviewState, { status: 'none' }>;

/** The review the processor opens right after the score it reviews (bounded wait; 503 if it does not come). */
export const awaitBcsReview = async (store: EventStore, reviewId: string, waitMs = ANALYSIS_WAIT_MS): Promise<{ review: BcsReviewView; position: bigint | null }> => {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const folded = await stateOf(store, bcsReviewStream(reviewId), bcsReviewDecider);
    if (folded.state.status !== 'none') {
      const last = folded.events[folded.events.length - 1];
      return { review: bcsReviewView(folded.state), position: last.position };
    }
    if (Date.now() >= deadline) {
      throw new DomainError('analysis_unavailable', `the score was computed but its review ${reviewId} was not opened within ${Math.round(waitMs / 1000)} s; it will be`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
};

/**
 * The vet's decision, decided on the review's stream with its expected revision: a concurrent
 * second decision makes the append fail and is decided again on the new state (same decision →
 * nothing appended, the review answered as it stands; a different one → 409 conflict).
 */
export const decideBcsReview = async (
  store: EventStore,
  reviewId: string,
  body: { status: BcsDecision['status']; corrected_score?: number; vet_notes?: string },
  context: CommandContext,
): Promise<{ review: BcsReviewView; accountId: string; position: bigint | null }> => {
  const decision: BcsDecision = { status: body.status, corrected_score: body.corrected_score ?? null, vet_notes: body.vet_notes ?? null };
  const result = await handleCommand(store, bcsReviewStream(reviewId), bcsReviewDecider, { type: 'DecideBcsReview', decision, now: new Date().toISOString() }, context);
  const state = result.state as Open;
  return { review: bcsReviewView(state), accountId: state.request.account_id, position: result.position };
};
