// What a host's HTTP server does when a connection goes wrong (`clientError`: bytes Node's parser refuses, a
// reset, a request timeout) while a request on it is still being handled, and the client address a handler reads
// after its client left.
//
// Node's default answers the bad bytes 400 and destroys the socket at once, whatever runs on it: a valid /refresh
// followed by stray bytes on one connection (`...}1\r\n\r\n`) got only that 400 while its handler went on and
// rotated the session, so the client lost the only answer holding its new tokens, and its next presentation of
// the old token revoked the family. Here every request that had fully arrived is answered first, in order, and the
// connection closed after the last of them (`Connection: close`), whatever follows it: stray bytes, or a next
// request whose headers parsed but whose body went bad (a broken chunk), so nothing a client is told failed has
// changed state, and no answer to a request that took effect is lost. A request still arriving when the bytes went
// bad cannot be complete, so no handler acted on it (every handler reads its whole body before it acts): it gets no
// answer after the complete ones (the close tells the client to send it again); alone, or on an idle connection,
// it keeps Node's answer (400, or 431 / 408 as Node picks) and the socket is destroyed.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface InFlight {
  req: IncomingMessage;
  res: ServerResponse;
}

/** Node's own answers to a connection it refuses (lib/_http_server.js), by error code. */
const REFUSALS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n',
  ERR_HTTP_REQUEST_TIMEOUT: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
};
const BAD_REQUEST = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';

/** Errors of the socket itself, not of its bytes: the client is gone and nothing can be written to it. */
const SOCKET_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT']);

/**
 * Wraps `app` so every request is tracked on its socket until its answer is done, and installs the server's
 * `clientError` handling described above. Also reads each connection's peer address when it opens: Node asks the
 * kernel only on first use and a closed socket has none to give, so a handler that reads `req.socket.remoteAddress`
 * (proxy-addr, Express's `req.ip`, the per-address rate limits) after its client left got `undefined`; read at
 * accept, it stays the address the connection had.
 */
export function guardConnections(server: Server, app: RequestListener): RequestListener {
  const inFlight = new WeakMap<Socket, Set<InFlight>>();
  const closing = new WeakSet<Socket>();
  server.on('connection', (socket: Socket) => {
    void socket.remoteAddress;
  });
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    // The parser repeats its error for any later bytes: the first decision stands.
    if (closing.has(socket)) return;
    closing.add(socket);
    const pending = [...(inFlight.get(socket) ?? [])];
    if (SOCKET_GONE.has(err.code ?? '') || !socket.writable) {
      socket.destroy();
      return;
    }
    // Requests arrive in order, so the complete ones come first; only the last one can still be arriving.
    const complete = pending.filter((p) => p.req.complete);
    if (complete.length > 0) {
      answerThenClose(socket, complete);
      return;
    }
    if (!pending.some((p) => p.res.headersSent)) socket.write(REFUSALS[err.code ?? ''] ?? BAD_REQUEST);
    socket.destroy();
  });
  return (req, res) => {
    const socket = req.socket;
    let set = inFlight.get(socket);
    if (!set) {
      set = new Set();
      inFlight.set(socket, set);
    }
    const entry = { req, res };
    const pending = set;
    pending.add(entry);
    res.once('close', () => pending.delete(entry));
    app(req, res);
  };
}

/**
 * Lets the answers to the complete requests on `socket` go out, the last saying `Connection: close` (so Node
 * writes nothing after it: an incomplete request behind it is never answered), then ends the socket.
 */
function answerThenClose(socket: Socket, pending: InFlight[]): void {
  const last = pending[pending.length - 1] as InFlight;
  if (!last.res.headersSent) last.res.setHeader('connection', 'close');
  let open = pending.length;
  for (const { res } of pending) {
    const done = () => {
      open -= 1;
      if (open === 0 && !socket.destroyed) socket.end();
    };
    if (res.writableFinished || res.destroyed) done();
    else res.once('close', done);
  }
}
