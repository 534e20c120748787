import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_UPLOAD_MEMORY_BUDGET_MB, heapPolicyWarning, maxOldSpaceMbFor, SERVICE_NODE_FLAGS, serviceNodeOptions } from './heap-policy.ts';
import { loadConfig } from './config.ts';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

describe('the V8 heap policy', () => {
  it('caps the old generation at the live margin plus the upload budget: 320 MiB by default', () => {
    expect(maxOldSpaceMbFor()).toBe(320);
    expect(maxOldSpaceMbFor(400)).toBe(560);
    expect(SERVICE_NODE_FLAGS).toEqual(['--max-old-space-size=320']);
    // the budget's default is config's
    expect(loadConfig({}).uploadMemoryBudgetMb).toBe(DEFAULT_UPLOAD_MEMORY_BUDGET_MB);
  });

  it("puts the policy's flags before an existing NODE_OPTIONS, so an operator's own flag wins", () => {
    expect(serviceNodeOptions(undefined)).toBe('--max-old-space-size=320');
    expect(serviceNodeOptions('  ')).toBe('--max-old-space-size=320');
    expect(serviceNodeOptions('--max-old-space-size=1024 --enable-source-maps')).toBe('--max-old-space-size=320 --max-old-space-size=1024 --enable-source-maps');
  });

  it('warns at start when the heap limit is below what the upload budget needs, or far above the policy', () => {
    // V8's heap_size_limit with the policy: 320 MiB old + 48 MiB young
    expect(heapPolicyWarning(368)).toBeNull();
    expect(heapPolicyWarning(368, 400)).toMatch(/below the 560 MiB UPLOAD_MEMORY_BUDGET_MB=400 needs/);
    // node's default on a 24 GiB machine
    expect(heapPolicyWarning(4144)).toMatch(/not the service's policy \(--max-old-space-size=320\)/);
    expect(heapPolicyWarning(608, 400)).toBeNull();
  });

  it('is what every start script and the Docker image (hence compose) start the processes with', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    const starts = Object.entries(scripts).filter(([name]) => name === 'start' || name.startsWith('start:'));
    expect(starts.length).toBeGreaterThanOrEqual(7);
    // the start scripts run the compiled service (npm run build's dist/), `npm run dev` its sources
    for (const [name, command] of starts) {
      expect(command, name).toContain(`NODE_OPTIONS="${SERVICE_NODE_FLAGS.join(' ')} $NODE_OPTIONS" node dist/`);
    }
    expect(scripts.dev).toContain(`NODE_OPTIONS="${SERVICE_NODE_FLAGS.join(' ')} $NODE_OPTIONS" tsx `);
    expect(read('Dockerfile')).toContain(`ENV NODE_OPTIONS="${SERVICE_NODE_FLAGS.join(' ')}"`);
    // compose runs the image's processes and leaves the image's NODE_OPTIONS alone
    const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, { build?: string; environment?: Record<string, string> }> };
    const built = Object.values(compose.services).filter((service) => service.build);
    expect(built.length).toBeGreaterThanOrEqual(6);
    for (const service of built) expect(service.environment?.NODE_OPTIONS).toBeUndefined();
  });
});
