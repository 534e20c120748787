export type MailMessage = { to: string; subject: string; text: string };

/** Outgoing e-mail (owner notices such as a disabled webhook endpoint). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
