// Runs once in the console's Node.js server (instrumentation.ts). Node announces every request
// on the `http.server.request.start` diagnostics channel before the server's handler sees it;
// the subscriber writes the socket's address into the request's headers, replacing any value a
// client sent, so route handlers (which see headers, never the socket) learn who connected.
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { markPeerStampActive, PEER_HEADER } from './client-address';

let stamped = false;

export function stampPeerAddress(): void {
  if (stamped) return;
  stamped = true;
  subscribe('http.server.request.start', (message) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    const address = socket.remoteAddress;
    if (address) request.headers[PEER_HEADER] = address;
    else delete request.headers[PEER_HEADER];
  });
  markPeerStampActive();
}
