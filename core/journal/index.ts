export { JournalRecorder } from './recorder.js';
export { JournalStore, JOURNAL_MIGRATIONS } from './store.js';
export { replayJournal, type ReplayLookup, type ReplayTarget, type Divergence } from './replay.js';
export { journalFileSchema, type Journal, type JournalStep, type JournalSummary } from './step.js';
