import { createTransport } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail; one implementation talks SMTP, tests may read what was sent from their own SMTP server. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** How long one SMTP conversation may take before the send fails (and is logged), in milliseconds. */
const SMTP_TIMEOUT_MS = 10_000;

/** A mailer over SMTP (`smtp://user:pass@host:587`, `smtps://…:465`), or null when `SMTP_URL` is not set. */
export function smtpMailer(smtpUrl: string | null, from: string): Mailer | null {
  if (smtpUrl === null) return null;
  const transport = createTransport({
    url: smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    close() {
      transport.close();
    },
  };
}
