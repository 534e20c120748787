import type { ReadStore } from '../infrastructure/read-store/port.ts';

export type QueryApiDeps = { readStore: ReadStore };
