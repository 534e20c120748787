import { runApiProcess } from '../http/api-process.ts';
import { READ_MODEL_PROJECTIONS } from '../contracts/read-models.ts';
import { queryApi, queryApiOptionsOf } from './plugin.ts';

/** The query API on its own: the read half of /v1, served from the read models. */
await runApiProcess({
  name: 'query-api',
  title: 'Animal data API — queries',
  readyCheckpoints: READ_MODEL_PROJECTIONS,
  routes: (config, adapters) => queryApi(queryApiOptionsOf(config, adapters)),
});
