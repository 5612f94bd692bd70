export { JournalRecorder, type RecorderOptions } from './recorder.js';
export { JournalStore, JOURNAL_MIGRATIONS } from './store.js';
export { replayJournal, replayable, type ReplayLookup, type ReplayResult, type ReplayTarget, type Divergence } from './replay.js';
export { journalFileSchema, type Journal, type JournalStep, type JournalSummary } from './step.js';
