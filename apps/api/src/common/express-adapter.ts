import { ExpressAdapter } from '@nestjs/platform-express';
import express from 'express';
import http from 'http';

type Ctor = new (...args: never[]) => object;

/**
 * Express gives every request and response its application's prototypes
 * (`Object.setPrototypeOf(req, app.request)`), which makes V8 migrate both objects to new maps on
 * every request. Here the HTTP server creates them with those prototypes from the start, so
 * Express's call finds them already in place. Same objects, same prototype chain
 * (app.request → express's request → http.IncomingMessage.prototype), same behaviour.
 */
export class PrebuiltPrototypesAdapter extends ExpressAdapter {
  constructor() {
    super(express());
  }

  override initHttpServer(options: Parameters<ExpressAdapter['initHttpServer']>[0]): void {
    if (options?.httpsOptions || options?.forceCloseConnections)
      return super.initHttpServer(options);
    const app = this.getInstance<express.Express>();
    const server = http.createServer(
      {
        IncomingMessage: bornWith(http.IncomingMessage, app.request) as typeof http.IncomingMessage,
        ServerResponse: bornWith(http.ServerResponse, app.response) as typeof http.ServerResponse,
      },
      app,
    );
    this.setHttpServer(server);
  }
}

/** A constructor running `base` on objects whose prototype is `proto`. */
function bornWith(base: Ctor, proto: object): Ctor {
  function Born(this: object, ...args: unknown[]) {
    (base as unknown as (...a: unknown[]) => void).apply(this, args);
  }
  Born.prototype = proto;
  return Born as unknown as Ctor;
}
