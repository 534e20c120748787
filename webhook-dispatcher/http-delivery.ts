import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { assertLiteralTargetAllowed, guardedLookup, type Resolve } from '../infrastructure/webhooks/target-policy.ts';
import { createDeadlines } from './deadlines.ts';

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
  for (let current = error as { code?: string; message?: string; cause?: unknown } | undefined, depth = 0; current && depth < 5; depth++) {
    if (current.code === 'WEBHOOK_TARGET_NOT_ALLOWED') return current.message ?? 'target not allowed';
    current = current.cause as typeof current;
  }
  return null;
};

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

  // URLs whose literal host passed the check (it depends on the URL alone): checked once each.
  const allowedUrls = new Set<string>();
  const assertUrlAllowed = (url: string) => {
    if (allowedUrls.has(url)) return;
    assertLiteralTargetAllowed(new URL(url).hostname, options.allowPrivateTargets);
    if (allowedUrls.size >= 10_000) allowedUrls.clear();
    allowedUrls.add(url);
  };

  const post = async (url: string, body: string, headers: Record<string, string>): Promise<DeliveryResult> => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const signal = deadlines.start();
    try {
      assertUrlAllowed(url);
      const response = await request(url, { method: 'POST', body, headers, dispatcher: agent, signal });
      await response.body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => undefined);
      const status = response.statusCode;
      if (status >= 200 && status < 300) return { success: true, statusCode: status, error: null, durationMs: elapsed() };
      const error = status >= 300 && status < 400 ? `redirect (${status}) not followed` : `receiver answered ${status}`;
      return { success: false, statusCode: status, error, durationMs: elapsed() };
    } catch (error) {
      const refused = targetRefusal(error);
      const message = refused ?? (signal.aborted ? `no answer within ${options.timeoutMs} ms` : describe(error));
      return { success: false, statusCode: null, error: message, durationMs: elapsed() };
    } finally {
      signal.clear();
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
