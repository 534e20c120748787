import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CapabilityList, capabilityChangesOf, PatchCapabilitiesBody } from '../../contracts/accounts.ts';
import { errors } from '../../contracts/common.ts';
import { ALL_FEATURES } from '../../domain/accounts/features.ts';
import { accountOf } from '../../http/auth.ts';
import { changeAccount } from '../handlers/accounts.ts';
import { contextOf, recordAccountChange, type CommandApiDeps } from '../deps.ts';

export const accountCommandRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.patch(
      '/accounts/capabilities',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Switch capabilities (features you have) on or off for your account: `{capabilities: {name: bool}}` or the `[{name, enabled}]` list GET answers',
          body: PatchCapabilitiesBody,
          response: { 200: CapabilityList, ...errors() },
        },
      },
      async (request) => {
        const account = accountOf(request);
        const result = await changeAccount(
          deps.eventStore,
          account.id,
          { type: 'SwitchCapabilities', changes: capabilityChangesOf(request.body), now: new Date().toISOString() },
          contextOf(request),
        );
        await recordAccountChange(deps, account.id, result.position);
        const features = result.state.features;
        return ALL_FEATURES.filter((name) => features.has(name)).map((name) => ({
          name,
          enabled: !result.state.switchedOff.has(name),
        }));
      },
    );
  };
