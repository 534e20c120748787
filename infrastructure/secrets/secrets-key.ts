import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { aesGcmSecretBox, type SecretBox } from './secret-box.ts';

export const SECRETS_KEY_FILE = 'secrets.key';

/**
 * The key that encrypts webhook signing secrets: SECRETS_KEY (base64 of 32 bytes) when set —
 * required wherever several processes share the log — otherwise, on the embedded runtime, a key
 * generated once and kept in DATA_DIR/secrets.key (mode 0600, base64). Losing that file makes the
 * stored secrets unreadable: deliveries then fail until each endpoint's secret is rotated.
 */
export const loadSecretsKey = async (config: Pick<Config, 'secretsKey' | 'dataDir'>): Promise<Buffer> => {
  if (config.secretsKey) return Buffer.from(config.secretsKey, 'base64');
  const file = join(config.dataDir, SECRETS_KEY_FILE);
  await mkdir(config.dataDir, { recursive: true });
  if (!(await exists(file))) await createKeyFile(file);
  await chmod(file, 0o600).catch(() => undefined);
  const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a base64 32-byte key`);
  return key;
};

const exists = (file: string): Promise<boolean> =>
  readFile(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );

const createKeyFile = async (file: string): Promise<void> => {
  // Written aside, then linked into place: a concurrent starter sees either no file or a whole one.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(draft, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  try {
    await link(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(draft);
  }
};

export const openSecretBox = async (config: Pick<Config, 'secretsKey' | 'dataDir'>): Promise<SecretBox> =>
  aesGcmSecretBox(await loadSecretsKey(config));
