// One endpoint for both services, as LocalStack offers on :4566: a loopback proxy that sends
// DynamoDB's JSON protocol (requests carrying `x-amz-target: DynamoDB_...`) to dynalite and
// everything else to s3rver. Headers, Host included, pass through unchanged, so SigV4 signatures
// made for the proxy's address still verify at s3rver.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SingleEndpoint {
  readonly url: string;
  close(): Promise<void>;
}

export async function startSingleEndpoint(dynamodbEndpoint: string, s3Endpoint: string): Promise<SingleEndpoint> {
  const server: Server = createServer((req, res) => {
    const target = new URL(String(req.headers['x-amz-target'] ?? '').startsWith('DynamoDB') ? dynamodbEndpoint : s3Endpoint);
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
