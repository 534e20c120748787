import { afterEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { logRedactPaths } from '../infrastructure/logger.ts';
import { lazyRequestLoggers } from './request-logger.ts';

/** Request loggers made on first use: the lines written are those Fastify's own child writes. */
let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const build = async (level: string, childLoggerFactory?: typeof lazyRequestLoggers) => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  app = Fastify({
    logger: { level, stream, redact: { paths: logRedactPaths, censor: '[redacted]' } },
    genReqId: () => 'req-1',
    ...(childLoggerFactory ? { childLoggerFactory } : {}),
  });
  let childLevel = '';
  app.get('/quiet', async (request) => {
    request.log.info('an info line');
    return { ok: true };
  });
  app.get('/loud', async (request) => {
    request.log.warn({ api_key: 'live_secret', detail: 7 }, 'a warning');
    childLevel = request.log.level;
    return { ok: true };
  });
  app.get('/own-level', { logLevel: 'debug' }, async (request) => {
    request.log.debug('a debug line');
    return { ok: true };
  });
  await app.ready();
  const request = async (url: string) => {
    lines.length = 0;
    expect((await app!.inject({ method: 'GET', url })).statusCode).toBe(200);
    return lines.map(({ time: _time, pid: _pid, hostname: _hostname, responseTime: _responseTime, ...rest }) => rest);
  };
  return { request, childLevel: () => childLevel };
};

describe('lazy request loggers', () => {
  it('write nothing below the level set, and make no child for it', async () => {
    const { request } = await build('warn', lazyRequestLoggers);
    let children = 0;
    const parent = app!.log;
    const child = parent.child.bind(parent);
    parent.child = ((...args: Parameters<typeof child>) => {
      children += 1;
      return child(...args);
    }) as typeof parent.child;
    expect(await request('/quiet')).toEqual([]);
    expect(children).toBe(0);
    expect(await request('/loud')).toHaveLength(1);
    expect(children).toBe(1);
  });

  it('write the same lines as an eager child: request id bound, secrets redacted', async () => {
    for (const level of ['warn', 'info']) {
      const lazy = await build(level, lazyRequestLoggers);
      const lazyLines = [...(await lazy.request('/quiet')), ...(await lazy.request('/loud'))];
      const lazyLevel = lazy.childLevel();
      await app!.close();
      const eager = await build(level);
      const eagerLines = [...(await eager.request('/quiet')), ...(await eager.request('/loud'))];
      expect(lazyLines).toEqual(eagerLines);
      expect(lazyLevel).toBe(eager.childLevel());
      expect(lazyLines.some((line) => line.reqId === 'req-1' && line.msg === 'a warning' && line.api_key === '[redacted]' && line.detail === 7)).toBe(true);
      await app!.close();
      app = undefined;
    }
  });

  it("honour a route's own log level", async () => {
    const { request } = await build('warn', lazyRequestLoggers);
    const lines = await request('/own-level');
    expect(lines.filter((line) => line.msg === 'a debug line')).toEqual([expect.objectContaining({ reqId: 'req-1', level: 20 })]);
  });
});
