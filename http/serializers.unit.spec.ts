import { describe, expect, it } from 'vitest';
import { sharedSerializers } from './serializers.ts';

const envelope = { type: 'object', properties: { message: { type: 'string' }, status: { type: 'integer' } } };
const item = { type: 'object', properties: { id: { type: 'integer' } } };

describe('shared response serialisers', () => {
  it('compiles one serialiser per distinct schema, shared by every route and status that answers it', () => {
    const compile = sharedSerializers()({}, {});
    const a404 = compile({ method: 'GET', url: '/a', httpStatus: '404', schema: envelope });
    const b400 = compile({ method: 'POST', url: '/b', httpStatus: '400', schema: structuredClone(envelope) });
    const a200 = compile({ method: 'GET', url: '/a', httpStatus: '200', schema: item });
    expect(b400).toBe(a404);
    expect(a200).not.toBe(a404);
    // Each still serialises by its own schema (unknown fields dropped, types kept).
    expect(JSON.parse(a404({ message: 'gone', status: 404, extra: true }))).toEqual({ message: 'gone', status: 404 });
    expect(JSON.parse(a200({ id: 7, message: 'x' }))).toEqual({ id: 7 });
  });

  it('does not share across sets of shared schemas (each Fastify context compiles its own)', () => {
    const factory = sharedSerializers();
    const first = factory({}, {})({ method: 'GET', url: '/a', httpStatus: '200', schema: item });
    const second = factory({}, {})({ method: 'GET', url: '/a', httpStatus: '200', schema: item });
    expect(second).not.toBe(first);
  });
});
