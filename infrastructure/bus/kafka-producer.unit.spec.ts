import { describe, expect, it } from 'vitest';
import { staleProducer } from './kafka.ts';

describe('a stale idempotent producer (replaced before the relay tries again)', () => {
  it('is named by the protocol error kafkajs gives, or by the one it wraps once its retries ran out', () => {
    expect(staleProducer({ name: 'KafkaJSProtocolError', type: 'OUT_OF_ORDER_SEQUENCE_NUMBER' })).toBe(true);
    expect(staleProducer({ name: 'KafkaJSNumberOfRetriesExceeded', originalError: { type: 'UNKNOWN_PRODUCER_ID' } })).toBe(true);
    expect(staleProducer({ name: 'KafkaJSError', cause: { type: 'INVALID_PRODUCER_EPOCH' } })).toBe(true);
  });

  it('is not named by other failures, which the same producer retries', () => {
    expect(staleProducer({ name: 'KafkaJSProtocolError', type: 'NOT_LEADER_FOR_PARTITION' })).toBe(false);
    expect(staleProducer(new Error('connection refused'))).toBe(false);
    expect(staleProducer(null)).toBe(false);
  });
});
