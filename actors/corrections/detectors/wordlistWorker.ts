import { workerData } from 'node:worker_threads';
import { buildWordListFile } from './wordlist.js';

/** Worker thread of `ensureWordListCached`: expands the French dictionary into the cache file. */
const { path } = workerData as { path: string };
buildWordListFile(path);
