import { loadConfig } from '../infrastructure/config.ts';
import { startAllInOne } from './all-in-one.ts';
import { onShutdownOnceStarted } from '../infrastructure/shutdown.ts';

// The signal handlers are in place while it starts: METRICS_PORT's /health answers before the API.
await onShutdownOnceStarted(startAllInOne(loadConfig()).then((service) => service.stop));
