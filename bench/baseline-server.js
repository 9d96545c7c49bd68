import { createServer } from 'node:http';

/*
 * Cold-start baseline: Node answering GET /healthz with no framework and no database. Plain JavaScript, so that
 * it runs as it is under node (beside the compiled server) and under tsx (beside the TypeScript sources).
 */
createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
}).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
