import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeS3Request {
  method: string;
  path: string;
  contentType: string | undefined;
  authorization: string | undefined;
}

/**
 * A local stand-in for an S3-compatible store, path-style (`/bucket/key`): PUT stores an object, GET returns
 * it (or S3's NoSuchKey error), DELETE removes it. Enough to test an S3 client end to end.
 */
export class FakeS3 {
  readonly objects = new Map<string, { body: Buffer; contentType: string | undefined }>();
  readonly requests: FakeS3Request[] = [];
  private server: Server | null = null;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(({ status, headers, body }) => {
        res.writeHead(status, headers);
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(
    req: IncomingMessage,
  ): Promise<{ status: number; headers: Record<string, string>; body?: Buffer | string }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    const method = req.method ?? 'GET';
    this.requests.push({
      method,
      path,
      contentType: req.headers['content-type'],
      authorization: req.headers.authorization,
    });
    if (method === 'PUT') {
      this.objects.set(path, { body: Buffer.concat(chunks), contentType: req.headers['content-type'] });
      return { status: 200, headers: { etag: '"fake"' } };
    }
    if (method === 'DELETE') {
      this.objects.delete(path);
      return { status: 204, headers: {} };
    }
    const object = this.objects.get(path);
    if (!object) {
      return {
        status: 404,
        headers: { 'content-type': 'application/xml' },
        body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
      };
    }
    return {
      status: 200,
      headers: {
        'content-type': object.contentType ?? 'application/octet-stream',
        'content-length': String(object.body.length),
      },
      body: object.body,
    };
  }
}
