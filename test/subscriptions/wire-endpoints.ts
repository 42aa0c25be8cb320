// Local HTTP endpoints speaking the wire protocols of the AWS services a subscription talks to
// where no emulator runs here: Lambda's Invoke (REST-JSON), SQS's SendMessage (AWS JSON 1.0) and
// SNS's Publish (the query protocol, XML answers). The SDK clients under test send their real
// requests to them; each endpoint records what it received and answers as the service does.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WireRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export class WireEndpoint {
  readonly requests: WireRequest[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(handle: (req: WireRequest, res: ServerResponse) => void): Promise<WireEndpoint> {
    let endpoint!: WireEndpoint;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
        endpoint.requests.push(request);
        handle(request, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = new WireEndpoint(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return endpoint;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Lambda's Invoke API: `POST /2015-03-31/functions/<name>/invocations`, the payload as the body;
 * the answer is the function's result, with `X-Amz-Function-Error: Unhandled` when it threw.
 */
export function lambdaEndpoint(fn: (name: string, event: unknown) => { result: unknown; error?: boolean }): Promise<WireEndpoint> {
  return WireEndpoint.start((req, res) => {
    const m = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(req.path);
    if (!m || req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
      res.end(JSON.stringify({ Type: 'User', message: 'Function not found' }));
      return;
    }
    const { result, error } = fn(decodeURIComponent(m[1]), JSON.parse(req.body));
    res.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST', ...(error ? { 'x-amz-function-error': 'Unhandled' } : {}) });
    res.end(JSON.stringify(result));
  });
}

/** SQS (AWS JSON 1.0): SendMessage answered with the body's MD5, which the SDK checks. */
export function sqsEndpoint(): Promise<WireEndpoint> {
  return WireEndpoint.start((req, res) => {
    const input = JSON.parse(req.body) as { MessageBody: string };
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify({ MessageId: randomUUID(), MD5OfMessageBody: createHash('md5').update(input.MessageBody).digest('hex') }));
  });
}

/** SNS (query protocol): Publish answered in XML. */
export function snsEndpoint(): Promise<WireEndpoint> {
  return WireEndpoint.start((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(
      `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${randomUUID()}</MessageId></PublishResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
    );
  });
}
