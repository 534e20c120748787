import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createLogger } from '../infrastructure/logger.ts';
import { startDispatcher } from './index.ts';

/**
 * The webhook dispatcher in a thread of the all-in-one (runtime/dispatcher-thread.ts starts it):
 * the standalone dispatcher's shape — its own connections to the same stores, its own consumer
 * groups on the bus — so its work (POSTs, signing, attempt records) runs beside the projections,
 * the delivery log among them, instead of on their thread.
 *
 * Messages: in `{ type: 'stop' }`; out `{ type: 'started' }`, `{ type: 'stopped' }`,
 * `{ type: 'failed', message }` (it could not start).
 */
export type DispatcherThreadData = { config: Config; logLevel: string };
export type DispatcherThreadMessage = { type: 'started' } | { type: 'stopped' } | { type: 'failed'; message: string };

const { config, logLevel } = workerData as DispatcherThreadData;
const port = parentPort;
if (!port) throw new Error('webhook-dispatcher/thread.ts runs in a worker thread');
const post = (message: DispatcherThreadMessage) => port.postMessage(message);

const logger = createLogger('webhook-dispatcher', logLevel);
try {
  const adapters = await openAdapters(config);
  const running = await startDispatcher({
    ...adapters,
    logger,
    publicBaseUrl: config.publicBaseUrl,
    options: { allowPrivateTargets: config.webhookAllowPrivateTargets },
  });
  port.on('message', (message: { type: string }) => {
    if (message.type !== 'stop') return;
    void (async () => {
      try {
        await running.stop();
      } finally {
        await adapters.close();
        post({ type: 'stopped' });
      }
    })();
  });
  post({ type: 'started' });
} catch (error) {
  post({ type: 'failed', message: (error as Error).stack ?? String(error) });
}
