import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';

/**
 * How much memory an image upload's body costs while it is received, decoded and checked, per
 * byte of the body: a multipart `file` is held as its chunks, then joined into one buffer; a JSON
 * body's base64 image is decoded as it streams in (¾ of a byte per byte, command-api/uploads/
 * json-upload-body.ts), and reading it for its checks and sizes takes about as much again (a 50 MB
 * photo sent as base64 took the process's resident memory up by 55–120 MiB, 2026-11-28).
 */
const BYTES_HELD_PER_BODY_BYTE = 2;

/**
 * The memory a process lets image upload bodies take at once (UPLOAD_MEMORY_BUDGET_MB): every
 * upload is buffered whole before its bytes are checked (sharp and file-type read a buffer), so
 * without a bound a few concurrent 50 MB uploads — one client or several — would take the process
 * past its memory limit. An upload takes its share (bodyWeight) before its body is read and gives
 * it back when its answer is sent or its connection closes. Pet photos, received on disk first,
 * wait for their share before each is read into memory (`acquire`). One upload is always let in,
 * however large (within the body limit), so the largest allowed upload can always be made.
 */
export const uploadBudget = (capacityBytes: number) => {
  let held = 0;
  let holders = 0;
  /** Work already received (pet photos on disk) waiting for its share, in arrival order. */
  const waiting: { bytes: number; resume: (give: () => void) => void }[] = [];

  const fits = (bytes: number) => holders === 0 || held + bytes <= capacityBytes;
  const hold = (bytes: number): (() => void) => {
    held += bytes;
    holders += 1;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      held -= bytes;
      holders -= 1;
      while (waiting.length > 0 && fits(waiting[0].bytes)) {
        const next = waiting.shift()!;
        next.resume(hold(next.bytes));
      }
    };
  };

  return {
    /** Takes `bytes` at once; the function gives them back (once). Null: the budget is spoken for. */
    take(bytes: number): (() => void) | null {
      return waiting.length === 0 && fits(bytes) ? hold(bytes) : null;
    },
    /** Takes `bytes` once they fit, after those that waited before. */
    acquire(bytes: number): Promise<() => void> {
      if (waiting.length === 0 && fits(bytes)) return Promise.resolve(hold(bytes));
      return new Promise((resume) => waiting.push({ bytes, resume }));
    },
    held: () => held,
  };
};

export type UploadBudget = ReturnType<typeof uploadBudget>;

/**
 * The share of the budget a request's body takes: its Content-Length times what each byte costs
 * (BYTES_HELD_PER_BODY_BYTE); a body of unknown length (chunked) is counted at the route's limit.
 */
export const bodyWeight = (headers: { 'content-type'?: string; 'content-length'?: string }, bodyLimit: number): number => {
  const declared = Number(headers['content-length']);
  const length = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, bodyLimit) : bodyLimit;
  return length * BYTES_HELD_PER_BODY_BYTE;
};

/**
 * A route's preParsing hook (it runs after authentication and before the body is read): the
 * upload's share of `budget`, or 503 `media_busy` with Retry-After when the uploads already being
 * received hold it.
 */
export const holdUploadMemory =
  (budget: UploadBudget) =>
  async (request: FastifyRequest, reply: FastifyReply, payload: NodeJS.ReadableStream): Promise<NodeJS.ReadableStream> => {
    const give = budget.take(bodyWeight(request.headers as Record<string, string | undefined>, request.routeOptions.bodyLimit));
    if (!give) {
      throw new DomainError('media_busy', 'too many large uploads are being received right now: try again shortly', { retryAfterSeconds: 2 });
    }
    reply.raw.once('close', give);
    return payload;
  };
