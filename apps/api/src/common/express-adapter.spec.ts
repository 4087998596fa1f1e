import type { AddressInfo } from 'net';
import type express from 'express';
import http from 'http';
import { PrebuiltPrototypesAdapter } from './express-adapter';

describe('PrebuiltPrototypesAdapter', () => {
  it("creates each request and response with the application's prototypes, which Express keeps", async () => {
    const adapter = new PrebuiltPrototypesAdapter();
    const app = adapter.getInstance<express.Express>();
    const seen: boolean[] = [];
    app.get('/x', (req, res) => {
      seen.push(
        Object.getPrototypeOf(req) === app.request,
        Object.getPrototypeOf(res) === app.response,
        req instanceof http.IncomingMessage,
        res instanceof http.ServerResponse,
      );
      res.status(201).json({ path: req.path, query: req.query });
    });
    adapter.initHttpServer({});
    const server = adapter.getHttpServer() as http.Server;
    // Before Express sees them: born with the application's prototypes.
    const born: boolean[] = [];
    server.prependListener('request', (req, res) =>
      born.push(
        Object.getPrototypeOf(req) === app.request,
        Object.getPrototypeOf(res) === app.response,
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/x?a=1`);
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ path: '/x', query: { a: '1' } });
      expect(born).toEqual([true, true]);
      expect(seen).toEqual([true, true, true, true]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
