import { createServer, Server } from 'http';
import { register } from 'prom-client';

/**
 * /metrics on its own port (METRICS_PORT), so the scraper's port can stay off the public load
 * balancer; the public port then answers 404 there. Everything else on this listener is 404.
 */
export function serveMetrics(port: number, host = '0.0.0.0'): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    register.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': register.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve, reject) =>
    server.once('error', reject).listen(port, host, () => resolve(server)),
  );
}
