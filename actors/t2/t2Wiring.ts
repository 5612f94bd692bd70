import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fromPromise, type AnyActorLogic } from 'xstate';
import type { CorrectionService } from '../../machines/correctionContract.js';
import type { Logger } from '../../core/log.js';
import { t2liveMachine, type EvaluateInput, type Graded, type Principal, type RestoredSession, type SessionFacts, type T2Input } from '../../machines/t2live.js';
import { AudioPipe, type ClientAudioPort, type InterlocutorAudioPort } from './audioPipe.js';
import { pcm16FromBytes } from './resampler.js';
import { SessionRecorder } from './audioRecorder.js';
import { journalPathOf, recoverRecording } from './recordingJournal.js';
import { appendRecording } from './recordingJoin.js';
import type { ClosedRecording, RecordingThread, ThreadRecording } from './recordingThread.js';
import { RuleMonitor } from './ruleMonitor.js';
import { backgroundOf } from './factSheetResponder.js';
import type { SessionStore } from './sessionStore.js';
import type { Subject, SubjectStore } from './subjects.js';
import { OrderedWrites } from './orderedWrites.js';

/** Why phonologie is absent from a T2 live report (docs/t2-live.md#phonology-spec-5-td-08). */
const PHONOLOGIE_NOTE = 'Phonologie non évaluée : l’évaluation demande l’audio brut (TD-08) ; le score porte sur les trois autres critères.';

interface T2Timers {
  examMs: number;
  warningMs: number;
  idleMs: number;
  connectMs: number;
  /** T2_RESUME_GRACE_MS: how long a session whose socket dropped waits for its candidate. */
  graceMs?: number;
}

export interface T2Deps {
  logger: Logger;
  subjects: SubjectStore;
  sessions: SessionStore;
  verifyToken: (token: string | undefined) => Promise<Principal>;
  corrections: CorrectionService;
  /**
   * The interlocutor for a mode (Gemini Live for audio, the text interlocutor for text). An audio
   * interlocutor may use the session's pipe (`audio`) instead of audio events; `written` resolves
   * once the session's store writes so far are done (the text interlocutor replies after it).
   */
  interlocutor: (mode: 'audio' | 'text', audio: InterlocutorAudioPort, written: () => Promise<void>, restore?: RestoredSession) => AnyActorLogic;
  recordingsDir: string;
  /** Records on a worker thread when given (the surface's); otherwise on this thread. */
  recordings?: RecordingThread;
  /**
   * True while the surface drains (SIGTERM): a session's end does not wait for its WAV, which is
   * assembled after the save (`finalising` gets that work) or, past the deadline, at the next start.
   */
  deferRecording?: () => boolean;
  /** Told of each recording assembled after its session's save (the drain waits for them, to its deadline). */
  finalising?: (done: Promise<void>) => void;
  timers: T2Timers;
  now?: () => number;
  /** The claims' clock (epoch ms): when a handed-over session started to await a taker. Default Date.now. */
  claimsNow?: () => number;
}

export interface SessionParams {
  sessionId: string;
  sujetId: string;
  mode: 'audio' | 'text';
  /** Kept in the authorize actor's closure only: never in context, input or inspection. */
  token: string | undefined;
  /** A reconnect (`resume=1`): resume the candidate's waiting session, never start one. */
  resume?: boolean;
  /** `takeover=1`: the candidate confirmed ending their session live in another tab. */
  takeover?: boolean;
  /** A session another instance held, taken over (its row is this instance's now): rebuilt from it. */
  restore?: RestoredSession;
}

/** The audio URL of a production (GET, owner only: transports/http/t2Http.ts). */
function audioUrlOf(productionId: string): string {
  return `/t2/productions/${encodeURIComponent(productionId)}/audio.wav`;
}

/**
 * Grades a T2 transcript through the correction service (docs/corrections.md § The report, oral criteria): the report plus the T2 facts.
 * Used at the end of a session and, at the next start, for the sessions a stop or a crash left ungraded.
 */
export async function gradeT2(corrections: CorrectionService, input: EvaluateInput, mode: 'audio' | 'text', subject?: Subject | null): Promise<Graded> {
  const outcome = await corrections.correctOral({
    candidateId: input.candidateId,
    tache: 'EO_T2',
    consigne: input.consigne,
    transcript: input.transcript.map((t) => ({ speaker: t.speaker, text: t.text, atMs: t.atMs })),
    // The fact sheet lets the grade count the information the candidate obtained.
    ...(subject ? { sujet: { titre: subject.titre, contexte: subject.contexte, faits: subject.factSheet } } : {}),
    kind: 'EO_T2_LIVE',
    meta: { sessionId: input.sessionId, sujetId: input.sujetId, endReason: input.endReason, rules: input.facts?.rules ?? null, usage: input.facts?.usage ?? null, mode },
    ...(input.facts?.audioPath ? { audioPath: input.facts.audioPath } : {}),
  });
  const report = {
    ...outcome.report,
    t2: { rules: input.facts?.rules ?? null, phonologie: { evaluee: false, note: PHONOLOGIE_NOTE }, endReason: input.endReason, mode },
  };
  return { report, productionId: outcome.productionId };
}

/**
 * Builds one session's machine with its effects: the rule monitor, the recorder, usage totals,
 * the correction service and the store — all owned by this closure and released at the end.
 */
export function wireT2Session(deps: T2Deps, params: SessionParams): { logic: typeof t2liveMachine; input: T2Input; audio: ClientAudioPort } {
  const now = deps.now ?? Date.now;
  const monitor = new RuleMonitor(() => {
    const s = deps.subjects.cached(params.sujetId);
    return s ? { factSheet: s.factSheet, background: backgroundOf(s) } : undefined;
  });
  const usage: Record<string, number> = {};
  let recorder: ThreadRecording | undefined;
  /** The close of a recording the session did not wait for (a drain): the save hands it on. */
  let deferred: Promise<ClosedRecording> | undefined;
  // A session taken over records into a file of its own: the one its first instance wrote (its
  // journal, on the shared folder) is never overwritten.
  const recordingPath = join(deps.recordingsDir, params.restore ? `${params.sessionId}.${(deps.now ?? Date.now)().toString(36)}.wav` : `${params.sessionId}.wav`);
  const log = deps.logger.child({ session: params.sessionId });
  const recordingFailed = (err: Error): void => log.error({ err: err.message }, 't2 recording failed: the session goes on unrecorded');
  const writes = new OrderedWrites(log);
  // Started on the first chunk (a session without audio has no file).
  const rec = (): ThreadRecording => (recorder ??= deps.recordings ? deps.recordings.open(recordingPath, recordingFailed) : inThreadRecording(recordingPath, now));
  // Audio bypasses the chart's event queue; the chart opens and closes this pipe (openAudio/closeAudio).
  // Text mode records nothing: binary frames a client sends anyway never create a file.
  const records = params.mode === 'audio';
  if (records) deps.recordings?.prepare();
  const audio = new AudioPipe(
    {
      candidate: (pcm) => {
        if (records) rec().candidate(pcm);
      },
      interlocutor: (pcm) => {
        if (records) rec().interlocutor(pcm);
      },
    },
    recordingFailed,
  );

  const logic = t2liveMachine.provide({
    actors: {
      authorize: fromPromise<Principal>(() => deps.verifyToken(params.token)),
      loadSubject: fromPromise(async ({ input }: { input: { sujetId: string } }) => {
        const s = await deps.subjects.get(input.sujetId);
        return s ? { id: s.id, titre: s.titre, consigne: s.consigne, role: s.role } : null;
      }),
      interlocutor: deps.interlocutor(params.mode, audio, () => writes.idle(), params.restore),
      finishSession: fromPromise<SessionFacts, { sessionId: string }>(async () => {
        const facts = { rules: monitor.report(), usage: { ...usage } };
        // Taken over: what the first instance recorded, made a valid WAV (its journal assembled).
        const first = params.restore?.audioPath ?? null;
        const firstBytes = first ? await (deps.recordings ? deps.recordings.recover(first) : recoverRecording(first)).catch((err: unknown) => {
          log.warn({ err: (err as Error).message }, 't2 the first instance\'s recording could not be assembled: the WAV holds this instance\'s part only');
          return null;
        }) : null;
        if (!recorder) return { audioPath: firstBytes !== null ? first : null, audioBytes: firstBytes ?? 0, ...facts };
        const closing = recorder.close();
        if (deps.deferRecording?.()) {
          // A drain: assemblies run one after another on the one recording thread, so waiting
          // for its own would cut the sessions queued behind (docs/operations.md § Stop).
          deferred = closing;
          return { audioPath: recordingPath, audioBytes: 0, audioPending: true, ...facts };
        }
        const closed = await closing;
        if (first && firstBytes !== null && closed.path) {
          // One WAV for the session: the first instance's part, then this one's.
          try {
            return { audioPath: first, audioBytes: await appendRecording(first, closed.path), ...facts };
          } catch (err) {
            log.warn({ err: (err as Error).message }, 't2 recordings of a session taken over not joined: the WAV holds this instance\'s part');
          }
        }
        return { audioPath: closed.path, audioBytes: closed.bytes, ...facts };
      }),
      evaluate: fromPromise<Graded, EvaluateInput>(async ({ input }) => gradeT2(deps.corrections, input, params.mode, await deps.subjects.get(input.sujetId))),
      save: fromPromise(async ({ input }) => {
        // After the open row and its turns: on a Postgres pool they could otherwise land after it.
        await writes.idle();
        await deps.sessions.save({
          id: input.sessionId,
          candidateId: input.candidateId,
          sujetId: input.sujetId,
          mode: input.mode,
          endReason: input.endReason,
          productionId: input.graded?.productionId ?? null,
          audioPath: input.facts?.audioPath ?? null,
          audioBytes: input.facts?.audioBytes ?? 0,
          recordingPending: input.facts?.audioPending === true,
          transcript: input.transcript,
          rules: input.facts?.rules ?? null,
          usage: input.facts?.usage ?? null,
          report: input.graded?.report ?? null,
        });
        if (deferred) deps.finalising?.(completeRecording(deferred));
        // Pending, the URL answers 409 until the WAV is assembled (transports/http/t2Http.ts).
        const audioUrl = input.facts?.audioPath && input.graded ? audioUrlOf(input.graded.productionId) : null;
        log.info({ endReason: input.endReason, turns: input.transcript.length, graded: input.graded !== null, recordingPending: deferred !== undefined }, 't2 session saved');
        return { audioUrl };
      }),
    },
    actions: {
      openAudio: () => audio.setOpen(true),
      closeAudio: () => audio.setOpen(false),
      recordCandidate: (_, { pcm }) => {
        if (records) rec().candidate(pcm);
      },
      recordInterlocutor: (_, { pcm }) => {
        if (records) rec().interlocutor(pcm);
      },
      monitorReply: (_, { text, candidateSpokeBefore }) => {
        if (text) monitor.reply(text, candidateSpokeBefore);
      },
      persistOpen: (_, { candidateId }) => {
        // Taken over: the row exists (another instance opened it) and is this instance's now.
        if (params.restore) return;
        writes.run('t2 session row not opened: written at the end', () =>
          deps.sessions.open({ id: params.sessionId, candidateId, sujetId: params.sujetId, mode: params.mode, audioPath: records ? recordingPath : null }));
      },
      persistTurn: (_, { turn }) => {
        // Closed candidate turns are the questions the monitor checks the next reply against.
        if (turn.speaker === 'candidate') monitor.candidate(turn.text);
        // The whole transcript is written again at the end: a failed turn write loses nothing then.
        writes.run('t2 turn not written: kept in memory until the end', () => deps.sessions.appendTurn(params.sessionId, turn));
      },
      persistDiscard: (_, { keep }) => {
        if (keep) return;
        // A session taken over that ends before its dialogue reopened: its row holds another
        // instance's turns. Kept, awaiting a taker again (or closed `interrupted` past the grace).
        if (params.restore) {
          writes.run('t2 taken-over row not released', () => deps.sessions.markAway(params.sessionId, (deps.claimsNow ?? Date.now)()));
          return;
        }
        writes.run('t2 open row not discarded', async () => {
          const gone = await deps.sessions.discardOpen(params.sessionId);
          // Nothing was saved (no row): a recording made before the cancel is not kept either
          // (one a drain is assembling is deleted once its assembly is over, not under it).
          if (!gone?.audioPath) return;
          if (deferred) await deferred;
          await discardRecording(gone.audioPath);
        });
      },
      persistClock: (_, { endsAt }) => {
        writes.run('t2 exam end not written: a takeover would restart the clock', () => deps.sessions.setExamEnd(params.sessionId, endsAt));
      },
      persistAway: () => {
        // The recording so far is assembled here (the instance taking over joins its own to it).
        if (recorder) void recorder.close().catch(() => undefined);
        // After the turns queued before it: an instance that takes the session over reads them all.
        writes.run('t2 hand-over not written: the session is closed `interrupted` by another instance', () => deps.sessions.markAway(params.sessionId, (deps.claimsNow ?? Date.now)()));
      },
      recordUsage: (_, { usage: u }) => {
        for (const [k, v] of Object.entries(u)) usage[k] = (usage[k] ?? 0) + v;
      },
    },
  });
  /** The row saved pending gets the WAV's size once it is assembled; left pending if the thread stopped first. */
  const completeRecording = async (closing: Promise<ClosedRecording>): Promise<void> => {
    try {
      const r = await closing;
      if (r.unfinished) {
        log.warn('t2 recording not assembled before the stop: its journal is assembled at the next start');
        return;
      }
      await deps.sessions.recordingAssembled(params.sessionId, { path: r.path, bytes: r.bytes });
    } catch (err) {
      log.warn({ err: (err as Error).message }, 't2 recording assembled but not recorded in its row: the next start does it');
    }
  };
  const restored = params.restore ? { restored: { transcript: params.restore.transcript, examEndsAt: params.restore.examEndsAt } } : {};
  // The clock is always in the input, never the chart's own Date.now: the journal records what it
  // returns, so a replay computes the same exam clock.
  const input: T2Input = { sessionId: params.sessionId, sujetId: params.sujetId, mode: params.mode, ...deps.timers, resumeOnly: params.resume === true, ...(params.takeover ? { takeover: true } : {}), now, ...restored };
  return { logic, input, audio };
}

/** Closes (if still open) and deletes a recording whose session keeps no row. */
async function discardRecording(path: string): Promise<void> {
  // The journal too: a recording still open finds none at its close and writes no WAV.
  await Promise.all([path, journalPathOf(path)].map((p) => rm(p, { force: true }).catch(() => undefined)));
}

/** The recording on the session's own thread (no worker given): same interface. */
function inThreadRecording(path: string, now: () => number): ThreadRecording {
  const r = SessionRecorder.create(path, now);
  return {
    candidate: (pcm) => r.candidate(pcm16FromBytes(pcm)),
    interlocutor: (pcm) => r.interlocutor(pcm16FromBytes(pcm)),
    close: () => r.close(),
  };
}
