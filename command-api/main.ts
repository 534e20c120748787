import { runApiProcess } from '../http/api-process.ts';
import { commandApiDepsOf } from './deps.ts';
import { commandApi } from './plugin.ts';

/** The command API on its own: the write half of /v1. */
await runApiProcess({
  name: 'command-api',
  title: 'Animal data API — commands',
  routes: (config, adapters, ops) => commandApi(commandApiDepsOf(config, adapters, ops.eventStore)),
});
