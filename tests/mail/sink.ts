/** A real SMTP server on loopback (smtp-server) that keeps what it receives: the relay the tests send through. */
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  user?: string;
}

export interface SinkOptions {
  /** Require AUTH with exactly these credentials. */
  auth?: { user: string; pass: string };
  /** Recipients refused at RCPT TO, with the reply code (550 or 450). */
  refuse?: Record<string, number>;
  /** Offer STARTTLS (with smtp-server's built-in self-signed certificate); off by default. */
  startTls?: boolean;
}

export interface Sink {
  port: number;
  url: string;
  received: Received[];
  /** Most connections open at once. */
  maxConnections: number;
  close(): Promise<void>;
}

export async function startSink(opts: SinkOptions = {}): Promise<Sink> {
  const received: Received[] = [];
  let open = 0;
  const sink = { received, maxConnections: 0 } as Sink;
  const options: SMTPServerOptions = {
    logger: false,
    disabledCommands: opts.startTls ? [] : ['STARTTLS'],
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    onConnect(_session, cb) {
      open += 1;
      sink.maxConnections = Math.max(sink.maxConnections, open);
      cb();
    },
    onClose() {
      open -= 1;
    },
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass) return cb(null, { user: auth.username });
      cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, cb) {
      const code = opts.refuse?.[address.address.toLowerCase()];
      if (code) return cb(Object.assign(new Error(code >= 500 ? 'No such user here' : 'Mailbox busy, try later'), { responseCode: code }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw: Buffer.concat(chunks),
          user: session.user as string | undefined,
        });
        cb();
      });
    },
  };
  const server = new SMTPServer(options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as { port: number };
  sink.port = port;
  sink.url = `smtp://127.0.0.1:${port}`;
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return sink;
}
