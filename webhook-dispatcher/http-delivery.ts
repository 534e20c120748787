import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import { errorChain } from '../infrastructure/error-chain.ts';
import { assertLiteralTargetAllowed, guardedLookup, type Resolve } from '../infrastructure/webhooks/target-policy.ts';
import { createDeadlines, type Deadline } from './deadlines.ts';

export type DeliveryResult = { success: boolean; statusCode: number | null; error: string | null; durationMs: number };

export type HttpDeliveryOptions = {
  allowPrivateTargets: boolean;
  timeoutMs: number;
  resolve?: Resolve;
  /** Kept-alive connections per receiver origin (undici pools them per origin). */
  connectionsPerOrigin?: number;
};

export type HttpDelivery = {
  post: (url: string, body: string, headers: Record<string, string>) => Promise<DeliveryResult>;
  close: () => Promise<void>;
};

const MAX_RESPONSE_BYTES = 64 * 1024;

const targetRefusal = (error: unknown): string | null => {
  for (const { code, message } of errorChain(error)) if (code === 'WEBHOOK_TARGET_NOT_ALLOWED') return typeof message === 'string' ? message : 'target not allowed';
  return null;
};

/**
 * undici's own timeouts (the agent's connect, headers and body timeouts are the delivery timeout
 * too): whichever of them and the deadline fires first, the attempt had no answer in time.
 */
const UNDICI_TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const undiciTimedOut = (error: unknown): boolean => UNDICI_TIMEOUTS.has((error as { code?: string } | undefined)?.code ?? '');

const describe = (error: unknown): string => {
  const { code, message } = error as { code?: string; message?: string };
  return `${code ? `${code}: ` : ''}${message ?? String(error)}`.slice(0, 500);
};

/**
 * POSTs webhook bodies with undici: one Agent whose connections resolve through the SSRF guard
 * (IP-literal hosts are checked before the request), a hard timeout over the whole exchange
 * (deadlines.ts: one timer for all requests), no
 * redirects followed (a 3xx is a failure), at most 64 KiB of the answer read and discarded.
 * Each origin has its own connection pool, so a hanging receiver holds only its own connections.
 */
export const createHttpDelivery = (options: HttpDeliveryOptions): HttpDelivery => {
  const agent = new Agent({
    connect: { lookup: guardedLookup({ allowPrivate: options.allowPrivateTargets, resolve: options.resolve }), timeout: options.timeoutMs },
    keepAliveTimeout: 4_000,
    ...(options.connectionsPerOrigin ? { connections: options.connectionsPerOrigin } : {}),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });

  // One timer for every request's deadline (the whole exchange, answer read included).
  const deadlines = createDeadlines(options.timeoutMs);

  /** Where each URL's requests go (origin and path, parsed once per URL). */
  const targets = new Map<string, { origin: string; path: string }>();
  const targetOf = (url: string) => {
    let target = targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      assertLiteralTargetAllowed(parsed.hostname, options.allowPrivateTargets);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (targets.size >= 10_000) targets.clear();
      targets.set(url, target);
    }
    return target;
  };

  /**
   * One exchange on undici's dispatcher with a handler of its own: the status once the answer is
   * read (at most MAX_RESPONSE_BYTES of it, discarded; a longer one ends the exchange there). No
   * response stream and no parsed headers are made: `request()` made both for every delivery.
   */
  const exchange = (url: string, body: string, headers: Record<string, string>, deadline: Deadline): Promise<number> =>
    new Promise<number>((resolve, reject) => {
      const { origin, path } = targetOf(url);
      let abort: ((error: Error) => void) | null = null;
      let status = 0;
      let read = 0;
      let settled = false;
      const onDeadline = () => abort?.(deadline.reason ?? new Error('deadline'));
      const settle = (error: Error | null) => {
        if (settled) return;
        settled = true;
        deadline.removeEventListener('abort', onDeadline);
        if (error) reject(error);
        else resolve(status);
      };
      deadline.addEventListener('abort', onDeadline);
      agent.dispatch(
        { origin, path, method: 'POST', body, headers },
        {
          onConnect: (abortRequest: (error?: Error) => void) => {
            if (deadline.aborted) abortRequest(deadline.reason);
            else abort = abortRequest;
          },
          onHeaders: (statusCode: number) => {
            if (statusCode >= 200) status = statusCode;
            return true;
          },
          onData: (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_RESPONSE_BYTES) {
              settle(null);
              abort?.(new Error('answer longer than it is read'));
            }
            return true;
          },
          onComplete: () => settle(null),
          onError: (error: Error) => settle(error),
        },
      );
    });

  const post = async (url: string, body: string, headers: Record<string, string>): Promise<DeliveryResult> => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const deadline = deadlines.start();
    try {
      const status = await exchange(url, body, headers, deadline);
      if (status >= 200 && status < 300) return { success: true, statusCode: status, error: null, durationMs: elapsed() };
      const error = status >= 300 && status < 400 ? `redirect (${status}) not followed` : `receiver answered ${status}`;
      return { success: false, statusCode: status, error, durationMs: elapsed() };
    } catch (error) {
      const refused = targetRefusal(error);
      const message = refused ?? (deadline.aborted || undiciTimedOut(error) ? `no answer within ${options.timeoutMs} ms` : describe(error));
      return { success: false, statusCode: null, error: message, durationMs: elapsed() };
    } finally {
      deadline.clear();
    }
  };

  return {
    post,
    close: () => {
      deadlines.close();
      return agent.close();
    },
  };
};
