import { describe, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { referenceDecider } from './decide.ts';
import { referenceImportDecider, type ReferenceDataImported } from './import.ts';
import type { ReferenceEvent } from './record.ts';

const now = '2026-01-01T00:00:00.000Z';
const later = '2026-02-01T00:00:00.000Z';
const record = { id: 'fact-cat-001', title: 'Collarbones' };
const published: ReferenceEvent<string> = {
  type: 'FactPublished',
  data: { id: 'fact-cat-001', content_hash: 'h1', record, published_at: now },
};
const publish = (hash: string, at = later) =>
  ({ type: 'PublishReferenceRecord', id: 'fact-cat-001', content_hash: hash, record: { ...record, hash }, now: at }) as const;

describe('reference record decider', () => {
  const spec = deciderSpec(referenceDecider('fact'));

  it('publishes a record the first time it is imported', () =>
    spec.given([]).when({ ...publish('h1', now), record }).then([published]));
  it('appends nothing when the content hash is unchanged', () => spec.given([published]).when(publish('h1')).thenNothing());
  it('revises a changed record with its full content and the previous hash', () =>
    spec.given([published]).when(publish('h2')).then([
      {
        type: 'FactRevised',
        data: { id: 'fact-cat-001', content_hash: 'h2', previous_hash: 'h1', record: { ...record, hash: 'h2' }, revised_at: later },
      },
    ]));
  it('withdraws a published record once, and publishes it again if it comes back', () => {
    const withdrawn: ReferenceEvent<string> = { type: 'FactWithdrawn', data: { id: 'fact-cat-001', content_hash: 'h1', withdrawn_at: later } };
    spec.given([published]).when({ type: 'WithdrawReferenceRecord', id: 'fact-cat-001', now: later }).then([withdrawn]);
    spec.given([published, withdrawn]).when({ type: 'WithdrawReferenceRecord', id: 'fact-cat-001', now: later }).thenNothing();
    spec.given([]).when({ type: 'WithdrawReferenceRecord', id: 'fact-cat-001', now: later }).thenNothing();
    spec.given([published, withdrawn]).when(publish('h1')).then([
      { type: 'FactPublished', data: { id: 'fact-cat-001', content_hash: 'h1', record: { ...record, hash: 'h1' }, published_at: later } },
    ]);
  });
  it('names events after the kind of record', () =>
    deciderSpec(referenceDecider('breed'))
      .given([])
      .when({ type: 'PublishReferenceRecord', id: 'abys', content_hash: 'b1', record: { id: 'abys' }, now })
      .then([{ type: 'BreedPublished', data: { id: 'abys', content_hash: 'b1', record: { id: 'abys' }, published_at: now } }]));
  it('refuses a record without a content hash', () => spec.given([]).when(publish('')).thenThrows('validation_failed'));
});

describe('reference data import decider', () => {
  const spec = deciderSpec(referenceImportDecider);
  const imported: ReferenceDataImported = {
    type: 'ReferenceDataImported',
    data: { dataset_hash: 'd1', record_ids: { fact: ['a', 'b'] }, counts: { fact: 2 }, changes: 2, imported_at: now },
  };

  it('records an import with its counts', () =>
    spec.given([]).when({ type: 'RecordReferenceImport', dataset_hash: 'd1', record_ids: { fact: ['a', 'b'] }, changes: 2, now }).then([imported]));
  it('records nothing for the same dataset without changes', () =>
    spec.given([imported]).when({ type: 'RecordReferenceImport', dataset_hash: 'd1', record_ids: { fact: ['a', 'b'] }, changes: 0, now }).thenNothing());
  it('records a new dataset', () =>
    spec
      .given([imported])
      .when({ type: 'RecordReferenceImport', dataset_hash: 'd2', record_ids: { fact: ['a'] }, changes: 1, now: later })
      .then([
        { type: 'ReferenceDataImported', data: { dataset_hash: 'd2', record_ids: { fact: ['a'] }, counts: { fact: 1 }, changes: 1, imported_at: later } },
      ]));
});
