import { expect } from 'vitest';

/** Asserts the spec's error envelope and returns it. */
export const expectEnvelope = (response: { status: number; body: any }, status: number, code?: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  const body = response.body;
  expect(body.statusCode).toBe(status);
  expect(typeof body.timestamp).toBe('string');
  expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
  expect(typeof body.path).toBe('string');
  expect(body.path.startsWith('/')).toBe(true);
  expect(typeof body.error).toBe('string');
  expect(typeof body.message === 'string' || (Array.isArray(body.message) && body.message.every((m: unknown) => typeof m === 'string'))).toBe(true);
  if (code) expect(body.code).toBe(code);
  return body;
};
