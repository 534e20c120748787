import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../webhook-dispatcher/signature.ts';

/**
 * The webhook signature checks docs/api.md gives receivers (Node and Python), taken from the page
 * as written and run against what the dispatcher signs (webhook-dispatcher/signature.ts).
 */
const API_PAGE = readFileSync(join(import.meta.dirname, '..', 'docs', 'api.md'), 'utf8');
const section = API_PAGE.split(/^## /m).find((part) => part.startsWith('Verifying a webhook signature')) ?? '';
const block = (language: string): string => {
  const match = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(section);
  if (!match) throw new Error(`no \`\`\`${language} block in docs/api.md's "Verifying a webhook signature"`);
  return match[1];
};

const SECRET = 'whsec_0123456789abcdef0123456789abcdef0123456789a';
const BODY = JSON.stringify({ id: 1, value: 1, _metadata: { event_type: 'vote.created', event_id: '01a21b8c-9077-761c-a34f-623bae66322f', timestamp: '2026-11-27T05:48:46.583Z' } });
const now = () => Math.floor(Date.now() / 1000);

/** [description, raw body, header, secret, expected] */
const CASES: [string, string, string, string, boolean][] = [
  ['a delivery as signed', BODY, signatureHeader(SECRET, BODY, now()), SECRET, true],
  ['a changed body', BODY.replace('"value":1', '"value":-1'), signatureHeader(SECRET, BODY, now()), SECRET, false],
  ['another secret', BODY, signatureHeader(SECRET, BODY, now()), `${SECRET}x`, false],
  ['a timestamp older than 300 s', BODY, signatureHeader(SECRET, BODY, now() - 301), SECRET, false],
  ['a header without a timestamp', BODY, 'v1=abc', SECRET, false],
  ['a malformed header', BODY, 'garbage', SECRET, false],
];

const dir = mkdtempSync(join(tmpdir(), 'docs-snippets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/api.md's webhook signature checks", () => {
  it('Node: accepts what the dispatcher signs, refuses a changed body, another secret, an old or malformed signature', async () => {
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, block('js'));
    const { verifyWebhook } = (await import(pathToFileURL(file).href)) as { verifyWebhook: (body: Buffer, header: string, secret: string) => boolean };
    for (const [name, body, header, secret, expected] of CASES) expect(verifyWebhook(Buffer.from(body), header, secret), name).toBe(expected);
  });

  it('Python: the same cases', () => {
    const file = join(dir, 'verify.py');
    writeFileSync(
      file,
      `${block('python')}\nimport json, sys\ncases = json.load(sys.stdin)\nprint(json.dumps([verify_webhook(body.encode(), header, secret) for body, header, secret in cases]))\n`,
    );
    const run = spawnSync('python3', [file], { input: JSON.stringify(CASES.map(([, body, header, secret]) => [body, header, secret])), encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(CASES.map(([, , , , expected]) => expected));
  });
});
