import { describe, expect, it } from 'vitest';
import { errorChain } from './error-chain.ts';

const codes = (error: unknown, options?: Parameters<typeof errorChain>[1]) => [...errorChain(error, options)].map((link) => link.code);

describe('errorChain', () => {
  it('walks the causes, outermost first', () => {
    const inner = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    const outer = Object.assign(new Error('fetch failed', { cause: inner }), { code: 'OUTER' });
    expect(codes(outer)).toEqual(['OUTER', 'ECONNREFUSED']);
  });

  it('follows the fields it is told to, the first that holds an object', () => {
    const protocol = { code: 'OUT_OF_ORDER_SEQUENCE_NUMBER' };
    const wrapped = { code: 'RETRIES_EXHAUSTED', originalError: protocol, cause: 'a string, not an error' };
    expect(codes(wrapped, { via: ['originalError', 'cause'] })).toEqual(['RETRIES_EXHAUSTED', 'OUT_OF_ORDER_SEQUENCE_NUMBER']);
    expect(codes({ code: 'A', cause: 'text', errorResponse: { code: 'B' } }, { via: ['cause', 'errorResponse'] })).toEqual(['A', 'B']);
  });

  it('stops at `depth`, at a value that is not an object, and on a cycle', () => {
    const looped: { code: string; cause?: unknown } = { code: 'LOOP' };
    looped.cause = looped;
    expect(codes(looped)).toHaveLength(5);
    expect(codes(looped, { depth: 2 })).toHaveLength(2);
    expect(codes('not an error')).toEqual([]);
    expect(codes(null)).toEqual([]);
  });
});
