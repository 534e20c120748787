// Entry of the inference worker threads: the worker is TypeScript, so register tsx's loader in
// this thread first (a worker does not inherit the main thread's module hooks on Node 20).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
