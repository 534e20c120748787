import type { Decider, Event } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { streamEvents } from '../stream-events.ts';

/**
 * A vet review of one body condition score is a stream of its own, `bcsreview-<review id>`; the
 * review id is the id of the analysis that produced the score, so one score has at most one
 * review (requested automatically for low confidence, or on request) and a redelivered request
 * opens nothing new. BcsReviewRequested (the processor) → BcsReviewed (the vet's decision, admin
 * key): `completed` (optionally with a corrected score) or `rejected`. BcsReviewed carries the
 * whole review, so the webhook body is built from that one event.
 *
 * Deciding twice: the same decision again (status, corrected score, notes) changes nothing and
 * answers the review as it stands (idempotent, safe to retry); a different one is 409 conflict.
 */
export const bcsReviewStream = (reviewId: string): string => `bcsreview-${reviewId}`;
export const BCS_REVIEW_CATEGORY = 'bcsreview';

export type BcsReviewTrigger = 'low_confidence' | 'requested';
export type BcsReviewStatus = 'pending' | 'completed' | 'rejected';

export type BcsReviewRequest = {
  review_id: string;
  analysis_id: string;
  pet_id: string;
  account_id: string;
  /** The pet's sub_id when the score was requested. */
  sub_id: string | null;
  /** The owner's id in the client's own system: given with an explicit request, else the pet's sub_id, else null. */
  external_owner_id: string | null;
  trigger: BcsReviewTrigger;
  note: string | null;
  score: number;
  confidence: number;
  confidence_reason: string;
  condition_flags: string[];
  reasons: string;
  requested_at: string;
};

export type BcsDecision = { status: Exclude<BcsReviewStatus, 'pending'>; corrected_score: number | null; vet_notes: string | null };

export type BcsReviewRequested = Event<'BcsReviewRequested', BcsReviewRequest>;
export type BcsReviewed = Event<'BcsReviewed', BcsReviewRequest & BcsDecision & { reviewed_at: string }>;
export type BcsReviewEvent = BcsReviewRequested | BcsReviewed;

/** The events of `bcsreview-…` streams, told apart where they are read back. */
export const bcsReviewEvents = streamEvents<BcsReviewEvent>(BCS_REVIEW_CATEGORY, { BcsReviewRequested: true, BcsReviewed: true });

export type BcsReviewState =
  | { status: 'none' }
  | { status: 'pending'; request: BcsReviewRequest }
  | { status: 'decided'; request: BcsReviewRequest; decision: BcsDecision; reviewed_at: string };

export type BcsReviewCommand = { type: 'RequestBcsReview'; request: BcsReviewRequest } | { type: 'DecideBcsReview'; decision: BcsDecision; now: string };

export const bcsReviewDecider: Decider<BcsReviewState, BcsReviewCommand, BcsReviewEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'BcsReviewRequested':
        return { status: 'pending', request: event.data };
      case 'BcsReviewed': {
        const { status, corrected_score, vet_notes, reviewed_at, ...request } = event.data;
        return { status: 'decided', request, decision: { status, corrected_score, vet_notes }, reviewed_at };
      }
    }
  },
  decide: (command, state) => {
    if (command.type === 'RequestBcsReview') {
      // One review per score: asked again (automatic and explicit, or a redelivery) it stays the one review.
      return state.status === 'none' ? [{ type: 'BcsReviewRequested', data: command.request }] : [];
    }
    if (state.status === 'none') throw new DomainError('not_found', 'no such body condition score review');
    const { decision } = command;
    if (decision.status === 'rejected' && decision.corrected_score !== null) {
      throw new DomainError('validation_failed', 'a rejected review carries no corrected_score', { details: ['corrected_score: only with status completed'] });
    }
    if (state.status === 'decided') {
      const same =
        state.decision.status === decision.status && state.decision.corrected_score === decision.corrected_score && state.decision.vet_notes === decision.vet_notes;
      if (same) return [];
      throw new DomainError('conflict', `this review was already ${state.decision.status} at ${state.reviewed_at}`);
    }
    return [{ type: 'BcsReviewed', data: { ...state.request, ...decision, reviewed_at: command.now } }];
  },
};

/** The review as the API and the webhooks show it. */
export type BcsReviewView = {
  id: string;
  pet_id: string;
  status: BcsReviewStatus;
  trigger: BcsReviewTrigger;
  note: string | null;
  /** The score as it stands: the vet's correction when there is one. */
  score: number;
  original_score: number;
  corrected_score: number | null;
  confidence: number;
  confidence_reason: string;
  condition_flags: string[];
  reasons: string;
  vet_notes: string | null;
  requested_at: string;
  reviewed_at: string | null;
  sub_id: string | null;
  external_owner_id: string | null;
};

export const bcsReviewView = (state: Exclude<BcsReviewState, { status: 'none' }>): BcsReviewView => {
  const { request } = state;
  const decision = state.status === 'decided' ? state.decision : null;
  return {
    id: request.review_id,
    pet_id: request.pet_id,
    status: decision?.status ?? 'pending',
    trigger: request.trigger,
    note: request.note,
    score: decision?.corrected_score ?? request.score,
    original_score: request.score,
    corrected_score: decision?.corrected_score ?? null,
    confidence: request.confidence,
    confidence_reason: request.confidence_reason,
    condition_flags: request.condition_flags,
    reasons: request.reasons,
    vet_notes: decision?.vet_notes ?? null,
    requested_at: request.requested_at,
    reviewed_at: state.status === 'decided' ? state.reviewed_at : null,
    sub_id: request.sub_id,
    external_owner_id: request.external_owner_id,
  };
};

/** The review a single event describes (each event carries the whole review so far). */
export const bcsReviewViewOf = (event: BcsReviewEvent): BcsReviewView =>
  bcsReviewView(bcsReviewDecider.evolve({ status: 'none' }, event) as Exclude<BcsReviewState, { status: 'none' }>);

/** The pet fields a vet's correction sets (completed with a corrected score); null when it changes nothing. */
export const bcsCorrectionFields = (reviewed: BcsReviewed['data']): Record<string, unknown> | null =>
  reviewed.status === 'completed' && reviewed.corrected_score !== null
    ? {
        body_condition_score: reviewed.corrected_score,
        body_condition_score_reasons: `vet review: corrected from ${reviewed.score} to ${reviewed.corrected_score}${reviewed.vet_notes ? ` (${reviewed.vet_notes})` : ''}. Measured: ${reviewed.reasons}`,
        body_condition_score_timestamp: reviewed.reviewed_at,
      }
    : null;
