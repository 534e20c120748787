import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomId } from '../ids.ts';
import type { Mailer } from './port.ts';

/** The embedded mailer: each message becomes an .eml file under `dir` (DATA_DIR/mail). */
export const fileMailer = (dir: string): Mailer => ({
  async send(message) {
    await mkdir(dir, { recursive: true });
    const date = new Date();
    const name = `${date.toISOString().replace(/[:.]/g, '-')}-${randomId(6)}.eml`;
    const body = [
      `Date: ${date.toUTCString()}`,
      'From: no-reply@animal-data.local',
      `To: ${message.to}`,
      `Subject: ${message.subject}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      message.text,
      '',
    ].join('\r\n');
    await writeFile(join(dir, name), body, { flag: 'wx' });
  },
});
