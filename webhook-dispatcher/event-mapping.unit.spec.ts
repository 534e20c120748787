import { describe, expect, it } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { deliveryIdFor } from './event-mapping.ts';

describe('deliveryIdFor', () => {
  it('gives one id per (event, endpoint), the same every time', () => {
    const eventId = uuidv7();
    expect(deliveryIdFor(eventId, 'w1')).toBe(deliveryIdFor(eventId, 'w1'));
    expect(deliveryIdFor(eventId, 'w1')).not.toBe(deliveryIdFor(eventId, 'w2'));
    expect(deliveryIdFor(eventId, 'w1')).toMatch(/^[0-9a-f]{32}$/);
  });

  it("names deliveries in the order of their events' time (UUIDv7 event ids)", () => {
    const ids = [0, 1, 2, 3].map((offset) => deliveryIdFor(uuidv7({ msecs: Date.UTC(2026, 10, 26) + offset * 1000 }), 'w1'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(4);
  });

  it('falls back to the hash alone for event ids that do not start with hex digits', () => {
    expect(deliveryIdFor('evt-1', 'w1')).toMatch(/^[0-9a-f]{32}$/);
    expect(deliveryIdFor('evt-1', 'w1')).not.toBe(deliveryIdFor('evt-2', 'w1'));
  });
});
