import { createServer } from 'node:http';

/* Cold-start baseline: the same runtime (tsx on Node) answering GET /healthz with no framework and no database. */
createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
}).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
