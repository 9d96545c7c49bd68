// Worker threads do not inherit the TypeScript loader the process runs under: register tsx here, then load
// the worker itself (ledger/verify-worker.ts). Plain JavaScript so that Node can start it as is.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
