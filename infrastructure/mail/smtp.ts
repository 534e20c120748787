import nodemailer from 'nodemailer';
import type { Mailer } from './port.ts';

/** Mail over SMTP (nodemailer), e.g. SMTP_URL=smtp://user:pass@mail.example.org:587. */
export const smtpMailer = (url: string, from: string): Mailer => {
  const transport = nodemailer.createTransport(url);
  return {
    async send(message) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
  };
};
