import { loadConfig } from '../infrastructure/config.ts';
import { startAllInOne } from './all-in-one.ts';
import { onShutdown } from '../infrastructure/shutdown.ts';

const service = await startAllInOne(loadConfig());
onShutdown(service.stop);
