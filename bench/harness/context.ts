import type { AdapterMode, RunningService } from './service.ts';
import { requestJson, type JsonResponse } from './http.ts';

export type Account = { account_id: string; api_key: string };

/** What an item gets: the running service, two accounts and the run's settings. */
export type Context = {
  mode: AdapterMode;
  /** This run's id: a service an item starts of its own names its databases and topics after it. */
  runId: string;
  /** Seconds each measured run lasts (BENCH_DURATION_S). */
  durationS: number;
  /** Seconds of warm-up before each measured run. */
  warmupS: number;
  service: RunningService;
  /** Account A (writes) and B (another account, reads A's ids to see 403). Both have every feature. */
  accounts: { a: Account; b: Account };
  /** A JSON request to the service: path starts with `/`. */
  request: (method: string, path: string, options?: { key?: string | null; body?: unknown }) => Promise<JsonResponse>;
  createAccount: (name: string) => Promise<Account>;
  log: (message: string) => void;
};

export const createContext = async (
  service: RunningService,
  settings: { mode: AdapterMode; runId: string; durationS: number; warmupS: number; log: (message: string) => void },
): Promise<Context> => {
  const request: Context['request'] = (method, path, options = {}) =>
    requestJson(`${service.url}${path}`, { method, key: options.key, body: options.body });
  const createAccount = async (name: string): Promise<Account> => {
    const response = await request('POST', '/v1/admin/accounts', { key: service.adminKey, body: { name } });
    if (response.status !== 201) throw new Error(`creating an account failed: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as Account;
  };
  const accounts = { a: await createAccount('bench A'), b: await createAccount('bench B') };
  return { ...settings, service, accounts, request, createAccount };
};

/** null when `GET path` answers 200 for account A, otherwise the "not available yet" reason. */
export const unlessAnswers = async (ctx: Context, path: string): Promise<string | null> => {
  const response = await ctx.request('GET', path, { key: ctx.accounts.a.api_key });
  return response.status === 200 ? null : `GET ${path} answers ${response.status}: not available yet`;
};
