import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
}

/** A local SMTP server that keeps every message it is given, for the service's `SMTP_URL`. */
export interface Mailbox {
  url: string;
  received: ReceivedMail[];
  /** The next message to this address (waiting up to `timeoutMs` for it), removed from the box. */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** The token of the link in a message (the part after `#token=`). */
  linkToken(mail: ReceivedMail): string;
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        raw += chunk;
      });
      stream.on('end', () => {
        received.push(
          parse(
            raw,
            session.envelope.rcptTo.map((r) => r.address),
          ),
        );
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async next(to, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = received.findIndex((mail) => mail.to.includes(to));
        if (index >= 0) return received.splice(index, 1)[0] as ReceivedMail;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    linkToken(mail) {
      const token = /#token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
      if (!token) throw new Error(`no link in: ${mail.text}`);
      return token;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Headers and a quoted-printable or plain text body, as nodemailer writes a text-only message. */
function parse(raw: string, to: string[]): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const subject = /^Subject: (.*)$/im.exec(head)?.[1] ?? '';
  const quotedPrintable = /^Content-Transfer-Encoding: quoted-printable/im.test(head);
  const text = quotedPrintable
    ? Buffer.from(
        body
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
        'latin1',
      ).toString('utf8')
    : body;
  return { to, subject, text };
}
