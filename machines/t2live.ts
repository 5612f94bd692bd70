import { and, assign, emit, enqueueActions, fromCallback, fromPromise, sendTo, setup, stateIn, type AnyEventObject } from 'xstate';

/**
 * One T2 live session (docs/t2-live.md#the-session-statechart-t2live): the candidate's WebSocket on one side, the
 * interlocutor (Gemini Live, or the offline text interlocutor) on the other.
 *
 *   authorizing → loadingSubject → session{ connecting → live{ dialogue ∥ idle ∥ exam ∥ link } }
 *     → finishing → evaluating → saving → ended | error | cancelled   (| handedOver | handedOff)
 *
 * `link` is the candidate's socket: when it drops during the dialogue the session waits
 * `graceMs` for the same candidate (`away`, tagged `awaitingClient`) while the exam clock and the
 * interlocutor go on; a reconnect resumes it (`client.resumed`: the transcript is replayed), the
 * grace period's end finishes it as `disconnected`. The reconnecting socket's own session learns
 * from the root that an older one awaits its candidate and hands its socket over (`handedOver`).
 * A session can also outlive its instance: another instance rebuilds it from its row (`restored`:
 * transcript and exam clock go on), and a stop with other instances running hands the live
 * session over (`server.handover` → `handedOff`) instead of ending it.
 *
 * The chart does no I/O: authorization, subject lookup, the interlocutor, the recording, the
 * rule monitor, the correction and the store are named here and provided at wiring time
 * (`actors/t2/t2Wiring.ts`). What goes to the client leaves as emitted events (`client.*`), which
 * the WebSocket transport serializes. The JWT never enters context or input: the `authorize`
 * actor closes over it, so inspection never sees it.
 */

type Speaker = 'candidate' | 'interlocutor';

export interface Turn {
  speaker: Speaker;
  text: string;
  /** ms since the interlocutor connection was ready. */
  atMs: number;
  final: boolean;
}

export interface SubjectSummary {
  id: string;
  titre: string;
  consigne: string;
  role: string;
}

export type ClientState = 'connecting' | 'listening' | 'interlocutor_speaking' | 'finishing' | 'evaluating' | 'ended' | 'error';

/**
 * `replaced`: the same candidate opened another session (one live session per `sub`);
 * `server_shutdown`: the server drained it on SIGTERM; `interrupted`: found open after a crash
 * (set by the recovery at start, never by this chart).
 */
export type EndReason = 'candidate' | 'time' | 'idle' | 'disconnected' | 'interlocutor_lost' | 'replaced' | 'server_shutdown' | 'interrupted';

/** Close codes, the 44xx/1011 included (docs/t2-live.md#close-codes). */
export const CLOSE = {
  NORMAL: 1000,
  AUTH_REQUIRED: 4001,
  PLAN_INSUFFICIENT: 4003,
  SUJET_NOT_FOUND: 4004,
  NOTHING_TO_GRADE: 4422,
  /** A reconnect asked to resume (`resume=1`) but no session of this candidate awaits one. */
  NOTHING_TO_RESUME: 4410,
  /**
   * The candidate's session is live in another tab or window: this one did not start, so the page
   * can ask before taking over (`takeover`). Shared with the transport's RESUMED_ELSEWHERE.
   */
  ACTIVE_ELSEWHERE: 4409,
  /** A message sent before the dialogue opened, past what is held for it (the socket stays open). */
  NOT_READY: 4425,
  TOO_MANY_SESSIONS: 4429,
  /**
   * Reconnect now with `resume=1`: the session goes on on another instance (this one stops, its
   * session handed over), or it is being taken over and is not ready here yet. The page retries
   * as after a dropped connection (docs/t2-live.md#close-codes).
   */
  RECONNECT: 4503,
  INTERNAL: 1011,
} as const;

/**
 * A session another instance ran, rebuilt from what it persisted (docs/scaling.md § A live T2
 * session survives its instance): the subject, the transcript written so far, the exam's
 * absolute end on the instances' clock (null: it never went live), the last Gemini Live
 * resumption handle.
 */
export interface RestoredSession {
  sujetId: string;
  mode: 'audio' | 'text';
  transcript: Turn[];
  examEndsAt: number | null;
  handle: string | null;
  /** What the first instance recorded (audio mode): joined to this instance's recording at the end. */
  audioPath: string | null;
}

export interface T2Input {
  sessionId: string;
  sujetId: string;
  mode: 'audio' | 'text';
  examMs: number;
  warningMs: number;
  idleMs: number;
  connectMs: number;
  /** How long a session whose socket dropped waits for its candidate; 0 or absent: it ends at once. */
  graceMs?: number;
  /** A reconnect: resume this candidate's waiting session, never start a new one. */
  resumeOnly?: boolean;
  /**
   * The candidate confirmed ending their session live elsewhere (another tab): without it, a live
   * session of the same candidate makes this one stop with ACTIVE_ELSEWHERE instead.
   */
  takeover?: boolean;
  /** The clock of `liveAt` and `remainingMs` (the system's clock in tests: SimulatedClock.now). */
  now?: () => number;
  /**
   * Taken over from an instance that died or handed it over: the transcript so far and the
   * exam's end go on from there (the page gets `resume` as the dialogue opens).
   */
  restored?: { transcript: Turn[]; examEndsAt: number | null };
}

export interface Principal {
  sub: string;
  features: string[];
}

export interface SessionFacts {
  audioPath: string | null;
  audioBytes: number;
  /** The WAV is assembled after the save (a drain does not wait for it): `audioBytes` comes later. */
  audioPending?: boolean;
  rules: unknown;
  usage: unknown;
}

export interface Graded {
  report: Record<string, unknown>;
  productionId: string;
}

export interface T2Context extends T2Input {
  candidateId: string | null;
  subject: SubjectSummary | null;
  transcript: Turn[];
  candidateSpoke: boolean;
  endReason: EndReason | null;
  facts: SessionFacts | null;
  graded: Graded | null;
  /**
   * The drain's grading time passed (`server.deadline`) before grading began: the session is
   * saved ungraded without calling the grader. Kept so that a deadline arriving while the session
   * is still closing (`finishing`, slow under load) is not lost.
   */
  gradeTimeOver: boolean;
  error: { code: number; name: string; message: string } | null;
  /**
   * When `live` was entered, on `now`'s clock: the exam's end is `liveAt + examMs` (an absolute
   * time, so a resumed page gets the true remaining time; the `after` timers keep running).
   */
  liveAt: number | null;
  /** Exam time already spent on another instance (a session taken over), counted at `live`'s entry. */
  examElapsedMs: number;
  /**
   * Candidate messages sent before the dialogue opened (a page, or a client, that writes as soon
   * as its socket opens): held, then given to the dialogue as it opens, in order — never dropped.
   */
  heldTexts: Array<{ text: string; atMs: number }>;
}

/** Messages held before the dialogue opens; one more is refused with an error frame, not dropped. */
const MAX_HELD_TEXTS = 8;

/** Events from the transport (validated there). */
type ClientEvent =
  | { type: 'client.audio'; pcm: Uint8Array }
  | { type: 'client.text'; text: string; atMs: number }
  | { type: 'client.end' }
  /** Candidate frames are arriving (sent at most once a second by the transport): resets idle. */
  | { type: 'client.activity' }
  | { type: 'client.disconnected' }
  /** The same candidate reconnected while this session was waiting for them (`link.away`). */
  | { type: 'client.resumed' };

/** Events the interlocutor actor sends back. */
export type InterlocutorEvent =
  | { type: 'interlocutor.ready' }
  | { type: 'interlocutor.audio'; pcm: Uint8Array }
  | { type: 'interlocutor.transcript'; speaker: Speaker; text: string; atMs: number }
  | { type: 'interlocutor.turnComplete' }
  | { type: 'interlocutor.interrupted' }
  | { type: 'interlocutor.usage'; usage: Record<string, number> }
  | { type: 'interlocutor.resumed'; handle: string }
  | { type: 'interlocutor.failed'; message: string };

/**
 * Events from the process: the root actor tells a session another one took its candidate over
 * (core/rootMachine.ts); the drain on SIGTERM ends it as « Terminer » would, then, past its grading
 * time, tells it to save without the report (graded at the next start).
 */
type SystemEvent =
  | { type: 'conversation.replaced' }
  | { type: 'server.shutdown' }
  | { type: 'server.deadline' }
  /**
   * The instance stops while others run (SIGTERM): the live session is handed over — persisted as
   * awaiting a taker, the page told to reconnect (RECONNECT) — instead of being ended and graded.
   */
  | { type: 'server.handover' }
  /** The root's answer to a claim: an older session of this candidate awaits its socket. */
  | { type: 'conversation.resume'; systemId: string }
  /** The root's answer to a resume-only claim when no session awaits the candidate. */
  | { type: 'conversation.nothingToResume' }
  /** The root's answer to a plain claim while the candidate's session is live elsewhere. */
  | { type: 'conversation.activeElsewhere' };

export type T2Event = ClientEvent | InterlocutorEvent | SystemEvent;

/** Events for the invoked interlocutor. */
export type ToInterlocutor = { type: 'candidate.audio'; pcm: Uint8Array } | { type: 'candidate.text'; text: string } | { type: 'candidate.end' };

/** What leaves towards the client (the transport serializes these). */
export type T2Emitted =
  | { type: 'client.state'; value: ClientState; endsInMs?: number }
  | { type: 'client.audio'; pcm: Uint8Array }
  | { type: 'client.transcript'; speaker: Speaker; text: string; final: boolean }
  | { type: 'client.warning'; message: string; remainingMs: number }
  /** Barge-in: the page drops the interlocutor audio it still has queued. */
  | { type: 'client.interrupted' }
  | { type: 'client.report'; report: Record<string, unknown>; productionId: string; audioUrl: string | null }
  | { type: 'client.error'; code: number; name: string; message: string }
  | { type: 'client.close'; code: number; reason: string }
  /** After a reconnect: what the page needs to rebuild itself (the transcript so far, the exam time left). */
  | { type: 'client.resume'; state: ClientState; transcript: Turn[]; remainingMs: number }
  /** This session's socket belongs to the older session `systemId` from now on (the transport re-attaches it). */
  | { type: 'client.handover'; systemId: string }
  /** Why the dialogue ended, as soon as it did (the report, if any, comes later). */
  | { type: 'client.ended'; reason: EndReason };

export interface InterlocutorInput {
  sessionId: string;
  sujetId: string;
  mode: 'audio' | 'text';
}

export interface EvaluateInput {
  candidateId: string;
  sessionId: string;
  sujetId: string;
  consigne: string;
  transcript: Turn[];
  facts: SessionFacts | null;
  endReason: EndReason | null;
}

export interface SaveInput {
  sessionId: string;
  candidateId: string;
  sujetId: string;
  mode: 'audio' | 'text';
  transcript: Turn[];
  facts: SessionFacts | null;
  graded: Graded | null;
  endReason: EndReason | null;
}

function appendTranscript(transcript: Turn[], speaker: Speaker, text: string, atMs: number, final: boolean): Turn[] {
  const last = transcript[transcript.length - 1];
  if (last && last.speaker === speaker && !last.final) {
    const joined = { ...last, text: `${last.text}${text}`, final };
    return [...transcript.slice(0, -1), joined];
  }
  return [...transcript, { speaker, text, atMs, final }];
}

function closeAll(transcript: Turn[]): Turn[] {
  return transcript.map((t) => (t.final ? t : { ...t, text: t.text.trim(), final: true }));
}

/** The interlocutor reply still open (not final), for the rule monitor. */
function openReply(context: T2Context): { text: string; candidateSpokeBefore: boolean } {
  const last = context.transcript[context.transcript.length - 1];
  if (!last || last.final || last.speaker !== 'interlocutor') return { text: '', candidateSpokeBefore: true };
  return { text: last.text.trim(), candidateSpokeBefore: context.transcript.slice(0, -1).some((t) => t.speaker === 'candidate') };
}

/**
 * The `persistTurn` action, enqueued from the actions that close a turn. An action declared in
 * `setup` cannot name a sibling with its types (the set is not built yet): XState resolves the
 * name at run time against the provided implementation, hence the cast.
 */
function persistTurn(turn: Turn): never {
  return { type: 'persistTurn', params: { turn } } as never;
}

export const t2liveMachine = setup({
  types: {
    context: {} as T2Context,
    events: {} as T2Event,
    input: {} as T2Input,
    emitted: {} as T2Emitted,
  },
  actors: {
    authorize: fromPromise<Principal>(async () => {
      throw new Error('authorize not provided');
    }),
    loadSubject: fromPromise<SubjectSummary | null, { sujetId: string }>(async () => {
      throw new Error('loadSubject not provided');
    }),
    interlocutor: fromCallback<ToInterlocutor, InterlocutorInput>(() => {
      throw new Error('interlocutor not provided');
    }),
    finishSession: fromPromise<SessionFacts, { sessionId: string }>(async () => {
      throw new Error('finishSession not provided');
    }),
    evaluate: fromPromise<Graded, EvaluateInput>(async () => {
      throw new Error('evaluate not provided');
    }),
    save: fromPromise<{ audioUrl: string | null }, SaveInput>(async () => {
      throw new Error('save not provided');
    }),
  },
  actions: {
    /** Side effects provided at wiring time (recording and rule monitor). */
    recordCandidate: (_, _params: { pcm: Uint8Array }) => {},
    recordInterlocutor: (_, _params: { pcm: Uint8Array }) => {},
    monitorReply: (_, _params: { text: string; candidateSpokeBefore: boolean }) => {},
    recordUsage: (_, _params: { usage: Record<string, number> }) => {},
    /**
     * The direct audio pipe (actors/t2/audioPipe.ts), open exactly while `session.live` is
     * active: audio chunks then bypass the event queue (no macrostep, no inspection event per
     * 20 ms chunk) but still only flow in the state where this chart lets them.
     */
    openAudio: (_, _params: undefined) => {},
    closeAudio: (_, _params: undefined) => {},
    /** Incremental persistence (provided at wiring): the row at start, each final turn, the discard of a session that never produced one. */
    persistOpen: (_, _params: { candidateId: string }) => {},
    persistTurn: (_, _params: { turn: Turn }) => {},
    persistDiscard: (_, _params: { keep: boolean }) => {},
    /** The exam's absolute end (epoch ms on `now`'s clock), so another instance can continue it. */
    persistClock: (_, _params: { endsAt: number }) => {},
    /** Handed over: the row is marked as awaiting a taker, after every turn written before it. */
    persistAway: (_, _params: undefined) => {},
    /** One live session per candidate: the root ends the older one (`conversation.replaced`). */
    claimCandidate: enqueueActions(({ context, self, enqueue }) => {
      // Alone (tests, benches) there is no root to claim from.
      const parent = self._parent;
      if (parent) enqueue.sendTo(parent, { type: 'conversation.claim', owner: `t2:${context.candidateId ?? ''}`, ref: self, resumeOnly: context.resumeOnly === true, ...(context.takeover ? { takeover: true } : {}) });
    }),
    announce: emit((_, params: { value: ClientState }) => ({ type: 'client.state' as const, value: params.value })),
    /** Tells the page why its dialogue ended (another tab took over, time, idle…), before any close. */
    announceEnd: emit(({ context }, params: { reason?: EndReason }) => ({ type: 'client.ended' as const, reason: params.reason ?? context.endReason ?? 'candidate' })),
    /** A transcription fragment: joined to the open turn of the same speaker, relayed to the client. */
    transcriptIn: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'interlocutor.transcript') return;
      const last = context.transcript[context.transcript.length - 1];
      // The other speaker starts: the open turn is complete.
      if (last && !last.final && last.speaker !== event.speaker) {
        enqueue.emit({ type: 'client.transcript', speaker: last.speaker, text: last.text.trim(), final: true });
        if (last.text.trim()) enqueue(persistTurn({ ...last, text: last.text.trim(), final: true }));
      }
      const base = last && !last.final && last.speaker !== event.speaker
        ? [...context.transcript.slice(0, -1), { ...last, text: last.text.trim(), final: true }]
        : context.transcript;
      enqueue.assign({
        transcript: appendTranscript(base, event.speaker, event.text, event.atMs, false),
        candidateSpoke: context.candidateSpoke || event.speaker === 'candidate',
      });
      enqueue.emit({ type: 'client.transcript', speaker: event.speaker, text: event.text, final: false });
    }),
    /** Text mode: one candidate message is one complete turn. */
    candidateText: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'client.text') return;
      enqueue(persistTurn({ speaker: 'candidate', text: event.text, atMs: event.atMs, final: true }));
      enqueue.assign({
        transcript: [...closeAll(context.transcript), { speaker: 'candidate', text: event.text, atMs: event.atMs, final: true }],
        candidateSpoke: true,
      });
      enqueue.sendTo('interlocutor', { type: 'candidate.text', text: event.text });
      enqueue.emit({ type: 'client.transcript', speaker: 'candidate', text: event.text, final: true });
    }),
    /** The interlocutor's reply is complete: finalize it (the monitor saw it just before). */
    closeReply: enqueueActions(({ context, enqueue }) => {
      const last = context.transcript[context.transcript.length - 1];
      if (!last || last.final || last.speaker !== 'interlocutor') return;
      const text = last.text.trim();
      enqueue.assign({ transcript: [...context.transcript.slice(0, -1), { ...last, text, final: true }] });
      if (text) enqueue(persistTurn({ ...last, text, final: true }));
      enqueue.emit({ type: 'client.transcript', speaker: 'interlocutor', text, final: true });
    }),
    /** End of the dialogue: every turn is closed (an unfinished reply was monitored just before). */
    closeTranscript: assign({ transcript: ({ context }) => closeAll(context.transcript).filter((t) => t.text.length > 0) }),
    setError: assign({ error: (_, params: { code: number; name: string; message: string }) => params }),
    /** A message before the dialogue opens: held for it (see `heldTexts`), or refused past the limit. */
    holdText: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'client.text') return;
      if (context.heldTexts.length < MAX_HELD_TEXTS) {
        enqueue.assign({ heldTexts: [...context.heldTexts, { text: event.text, atMs: event.atMs }] });
        return;
      }
      enqueue.emit({ type: 'client.error', code: CLOSE.NOT_READY, name: 'NOT_READY', message: 'La séance démarre : ce message n’a pas été pris en compte. Attendez « À vous » pour écrire.' });
    }),
    /** The socket resumes an older session: what this one held is refused, each with an error frame. */
    refuseHeldTexts: enqueueActions(({ context, enqueue }) => {
      context.heldTexts.forEach(() => {
        enqueue.emit({ type: 'client.error', code: CLOSE.NOT_READY, name: 'NOT_READY', message: 'La séance reprend : ce message n’a pas été pris en compte, envoyez-le de nouveau.' });
      });
      enqueue.assign({ heldTexts: [] });
    }),
    /** The dialogue opens: the held messages reach it as if sent now, in order. */
    releaseHeldTexts: enqueueActions(({ context, enqueue }) => {
      if (context.heldTexts.length === 0) return;
      for (const t of context.heldTexts) enqueue.raise({ type: 'client.text', text: t.text, atMs: t.atMs });
      enqueue.assign({ heldTexts: [] });
    }),
    /** A session taken over resumes the exam where the other instance left it (never from zero). */
    markLive: assign(({ context }) => {
      const at = (context.now ?? Date.now)();
      const endsAt = context.restored?.examEndsAt;
      const elapsed = endsAt == null ? 0 : Math.min(context.examMs, Math.max(0, context.examMs - (endsAt - at)));
      return { liveAt: at - elapsed, examElapsedMs: elapsed };
    }),
    /** A session taken over: the page gets the transcript and the time left as the dialogue opens. */
    replayRestored: enqueueActions(({ context, enqueue }) => {
      if (!context.restored) return;
      const endsAt = (context.liveAt ?? 0) + context.examMs;
      enqueue.emit({ type: 'client.resume', state: 'listening', transcript: context.transcript, remainingMs: Math.max(0, endsAt - (context.now ?? Date.now)()) });
    }),
    /** The page reconnected: everything it needs to show the session as it is now. */
    replayToClient: enqueueActions(({ context, enqueue, check }) => {
      // `stateIn` is typed for the finished machine; the id path is checked at run time.
      const speaking = check(stateIn('#t2live.session.live.dialogue.conversing.interlocutorTurn') as never);
      const endsAt = (context.liveAt ?? 0) + context.examMs;
      enqueue.emit({
        type: 'client.resume',
        state: speaking ? 'interlocutor_speaking' : 'listening',
        transcript: context.transcript,
        remainingMs: Math.max(0, endsAt - (context.now ?? Date.now)()),
      });
    }),
  },
  guards: {
    grantsLive: ({ event }) => (event as AnyEventObject & { output?: Principal }).output?.features.includes('oral_t2_live') === true,
    subjectFound: ({ event }) => (event as AnyEventObject & { output?: SubjectSummary | null }).output != null,
    candidateSaidSomething: ({ context }) => context.transcript.some((t) => t.speaker === 'candidate' && t.text.trim().length > 0),
    isCandidateTranscript: ({ event }) => event.type === 'interlocutor.transcript' && event.speaker === 'candidate',
    waitsForClient: ({ context }) => (context.graceMs ?? 0) > 0,
    gradeTimeOver: ({ context }) => context.gradeTimeOver,
  },
  delays: {
    connectTimeout: ({ context }) => context.connectMs,
    idleTimeout: ({ context }) => context.idleMs,
    untilWarning: ({ context }) => Math.max(0, context.examMs - context.warningMs - context.examElapsedMs),
    warningToEnd: ({ context }) => Math.max(0, Math.min(context.warningMs, context.examMs - context.examElapsedMs)),
    resumeGrace: ({ context }) => context.graceMs ?? 0,
  },
}).createMachine({
  id: 't2live',
  description: 'One live spoken dialogue of task 2: the candidate talks with the AI interlocutor, then the session is graded and saved.',
  context: ({ input }) => ({
    ...input,
    candidateId: null,
    subject: null,
    transcript: input.restored?.transcript ?? [],
    candidateSpoke: input.restored?.transcript.some((t) => t.speaker === 'candidate' && t.text.trim().length > 0) ?? false,
    endReason: null,
    facts: null,
    graded: null,
    gradeTimeOver: false,
    error: null,
    liveAt: null,
    examElapsedMs: 0,
    heldTexts: [],
  }),
  initial: 'authorizing',
  on: {
    // Before the session exists there is nothing to save: a vanished client cancels.
    'client.disconnected': { target: '.cancelled' },
  },
  states: {
    authorizing: {
      description: 'Checks the candidate’s token and that their plan includes the live dialogue.',
      on: {
        'server.shutdown': { target: 'cancelled' },
        // « Terminer » before the session exists: nothing to save, as while connecting.
        'client.end': { target: 'cancelled' },
        'client.text': { actions: 'holdText' },
      },
      invoke: {
        id: 'authorize',
        src: 'authorize',
        onDone: [
          { guard: 'grantsLive', target: 'loadingSubject', actions: [assign({ candidateId: ({ event }) => event.output.sub }), 'claimCandidate'] },
          { target: 'error', actions: { type: 'setError', params: { code: CLOSE.PLAN_INSUFFICIENT, name: 'PLAN_INSUFFICIENT', message: 'Le dialogue en direct de la tâche 2 demande l’offre Premium.' } } },
        ],
        onError: { target: 'error', actions: { type: 'setError', params: { code: CLOSE.AUTH_REQUIRED, name: 'AUTH_REQUIRED', message: 'Connexion requise : jeton absent, invalide ou expiré.' } } },
      },
    },
    loadingSubject: {
      description: 'Reads the subject; the root answers the candidate’s claim (new session, resume or refusal).',
      on: {
        'server.shutdown': { target: 'cancelled' },
        'client.end': { target: 'cancelled' },
        'client.text': { actions: 'holdText' },
        'conversation.replaced': { target: 'cancelled', actions: { type: 'announceEnd', params: { reason: 'replaced' } } },
        'conversation.activeElsewhere': {
          target: 'error',
          actions: { type: 'setError', params: { code: CLOSE.ACTIVE_ELSEWHERE, name: 'ACTIVE_ELSEWHERE', message: 'Une séance de ce compte est déjà en cours dans un autre onglet ou une autre fenêtre.' } },
        },
        // The root answers the claim made on leaving `authorizing` before the subject is read.
        // Messages held here are refused before the socket goes (the older session never saw them).
        'conversation.resume': { target: 'handedOver', actions: ['refuseHeldTexts', emit(({ event }) => ({ type: 'client.handover' as const, systemId: event.systemId }))] },
        'conversation.nothingToResume': {
          target: 'error',
          actions: { type: 'setError', params: { code: CLOSE.NOTHING_TO_RESUME, name: 'NOTHING_TO_RESUME', message: 'Cette séance n’est plus en cours : elle a été évaluée, son rapport est dans « Mes séances ».' } },
        },
      },
      invoke: {
        id: 'loadSubject',
        src: 'loadSubject',
        input: ({ context }) => ({ sujetId: context.sujetId }),
        onDone: [
          { guard: 'subjectFound', target: 'session', actions: assign({ subject: ({ event }) => event.output }) },
          { target: 'error', actions: { type: 'setError', params: { code: CLOSE.SUJET_NOT_FOUND, name: 'SUJET_NOT_FOUND', message: 'Ce sujet n’existe pas.' } } },
        ],
        onError: { target: 'error', actions: { type: 'setError', params: { code: CLOSE.INTERNAL, name: 'INTERNAL', message: 'Le sujet n’a pas pu être lu.' } } },
      },
    },
    session: {
      description: 'The session row is open and the interlocutor is running.',
      entry: { type: 'persistOpen', params: ({ context }) => ({ candidateId: context.candidateId ?? '' }) },
      invoke: {
        id: 'interlocutor',
        src: 'interlocutor',
        input: ({ context }) => ({ sessionId: context.sessionId, sujetId: context.sujetId, mode: context.mode }),
      },
      initial: 'connecting',
      states: {
        connecting: {
          description: 'Waits for the interlocutor (the Gemini Live socket) to be ready, within connectTimeout.',
          entry: [{ type: 'announce', params: { value: 'connecting' } }],
          on: {
            'interlocutor.ready': { target: 'live' },
            'interlocutor.failed': { target: '#t2live.error', actions: { type: 'setError', params: { code: CLOSE.INTERNAL, name: 'INTERLOCUTOR_UNAVAILABLE', message: 'L’interlocuteur est indisponible. Réessayez dans un instant.' } } },
            'client.end': { target: '#t2live.cancelled' },
            'client.text': { actions: 'holdText' },
            'client.disconnected': { target: '#t2live.cancelled' },
            'conversation.replaced': { target: '#t2live.cancelled', actions: { type: 'announceEnd', params: { reason: 'replaced' } } },
            'server.shutdown': { target: '#t2live.cancelled' },
          },
          after: {
            connectTimeout: { target: '#t2live.error', actions: { type: 'setError', params: { code: CLOSE.INTERNAL, name: 'INTERLOCUTOR_TIMEOUT', message: 'L’interlocuteur ne répond pas. Réessayez dans un instant.' } } },
          },
        },
        live: {
          type: 'parallel',
          description: 'The dialogue is on: audio flows both ways, while the idle, exam-time and connection watches run.',
          // The root reads it: a reconnect asking only to resume (`resumeOnly`) takes this session
          // over even while its old socket still looks open (a network drop is not seen at once).
          tags: ['resumable'],
          entry: ['openAudio', 'markLive', { type: 'persistClock', params: ({ context }) => ({ endsAt: (context.liveAt ?? 0) + context.examMs }) }, 'replayRestored', 'releaseHeldTexts'],
          exit: 'closeAudio',
          on: {
            // Audio as events: the path of an interlocutor or transport wired without the pipe
            // (the transport uses the pipe when the wiring provides one; same gating: `live` only).
            'client.audio': {
              actions: [
                sendTo('interlocutor', ({ event }) => ({ type: 'candidate.audio' as const, pcm: event.pcm })),
                { type: 'recordCandidate', params: ({ event }) => ({ pcm: event.pcm }) },
              ],
            },
            'interlocutor.audio': {
              actions: [
                emit(({ event }) => ({ type: 'client.audio' as const, pcm: event.pcm })),
                { type: 'recordInterlocutor', params: ({ event }) => ({ pcm: event.pcm }) },
              ],
            },
            'interlocutor.usage': { actions: { type: 'recordUsage', params: ({ event }) => ({ usage: event.usage }) } },
            // Leaving `session` stops the interlocutor, which closes the Gemini socket (§6 step 12).
            'client.end': { target: '#t2live.finishing', actions: assign({ endReason: 'candidate' }) },
            // Decided by the `link` region (wait for a reconnect, or finish at once).
            'client.disconnected': {},
            'interlocutor.failed': { target: '#t2live.finishing', actions: assign({ endReason: 'interlocutor_lost' }) },
            'conversation.replaced': { target: '#t2live.finishing', actions: assign({ endReason: 'replaced' }) },
            // The drain: as if the candidate had pressed « Terminer ».
            'server.shutdown': { target: '#t2live.finishing', actions: assign({ endReason: 'server_shutdown' }) },
            // The drain with other instances running: one of them continues the session.
            'server.handover': { target: '#t2live.handedOff' },
          },
          states: {
            dialogue: {
              description: 'Whose turn it is to speak.',
              initial: 'awaitingCandidate',
              states: {
                // The interlocutor never speaks first (§2.7, §3.13): we wait for the candidate.
                awaitingCandidate: {
                  description: 'Waits for the candidate to speak first; the interlocutor never opens.',
                  entry: [{ type: 'announce', params: { value: 'listening' } }],
                  on: {
                    'client.text': { target: 'conversing.interlocutorTurn', actions: 'candidateText' },
                    'interlocutor.transcript': [
                      { guard: 'isCandidateTranscript', target: 'conversing.candidateTurn', actions: 'transcriptIn' },
                      // Speaking first breaks a rule; it is relayed, and the monitor counts it.
                      { target: 'conversing.interlocutorTurn', actions: 'transcriptIn' },
                    ],
                  },
                },
                conversing: {
                  description: 'The exchange has started: turns alternate between the candidate and the interlocutor.',
                  initial: 'candidateTurn',
                  on: {
                    'client.text': { target: '.interlocutorTurn', actions: 'candidateText' },
                  },
                  states: {
                    candidateTurn: {
                      description: 'The candidate is speaking or may speak; their transcript is relayed.',
                      entry: [{ type: 'announce', params: { value: 'listening' } }],
                      on: {
                        'interlocutor.transcript': [
                          { guard: 'isCandidateTranscript', actions: 'transcriptIn' },
                          { target: 'interlocutorTurn', actions: 'transcriptIn' },
                        ],
                        'interlocutor.turnComplete': { actions: [{ type: 'monitorReply', params: ({ context }) => openReply(context) }, 'closeReply'] },
                      },
                    },
                    interlocutorTurn: {
                      description: 'The interlocutor is replying; the candidate may cut in.',
                      entry: [{ type: 'announce', params: { value: 'interlocutor_speaking' } }],
                      on: {
                        'interlocutor.transcript': { actions: 'transcriptIn' },
                        'interlocutor.turnComplete': { target: 'candidateTurn', actions: [{ type: 'monitorReply', params: ({ context }) => openReply(context) }, 'closeReply'] },
                        // Barge-in: the candidate spoke over the reply; Gemini cut it short.
                        'interlocutor.interrupted': {
                          target: 'candidateTurn',
                          actions: [{ type: 'monitorReply', params: ({ context }) => openReply(context) }, 'closeReply', emit({ type: 'client.interrupted' })],
                        },
                      },
                    },
                  },
                },
              },
            },
            idle: {
              description: 'Watches for silence: no activity for idleTimeout ends the session.',
              initial: 'watching',
              states: {
                watching: {
                  description: 'Any client activity restarts the idle timer.',
                  on: {
                    // The transport sends `client.activity` at most once a second while frames
                    // arrive: re-arming a timer per 20 ms audio chunk would cost 50 timers/s/session.
                    'client.activity': { target: 'watching', reenter: true },
                    'client.text': { target: 'watching', reenter: true },
                  },
                  after: { idleTimeout: { target: '#t2live.finishing', actions: assign({ endReason: 'idle' }) } },
                },
              },
            },
            exam: {
              description: 'The exam clock.',
              initial: 'running',
              states: {
                running: {
                  description: 'The exam time runs until the 30-second warning.',
                  after: { untilWarning: { target: 'warned' } },
                },
                warned: {
                  description: 'The candidate was told 30 seconds remain; then the session ends.',
                  entry: emit(({ context }) => ({ type: 'client.warning' as const, message: 'Il reste 30 secondes.', remainingMs: Math.max(0, Math.min(context.warningMs, context.examMs - context.examElapsedMs)) })),
                  after: { warningToEnd: { target: '#t2live.finishing', actions: assign({ endReason: 'time' }) } },
                },
              },
            },
            // The candidate's socket. While it is away the dialogue, the interlocutor and the exam
            // clock go on (the other regions are not left); only this region waits.
            link: {
              description: 'The candidate’s socket: present, or away and waiting for a reconnect.',
              initial: 'present',
              states: {
                present: {
                  description: 'The candidate’s socket is connected.',
                  on: {
                    // A reconnect that took over a socket the server still believed open.
                    'client.resumed': { actions: 'replayToClient' },
                    'client.disconnected': [
                      { guard: 'waitsForClient', target: 'away' },
                      { target: '#t2live.finishing', actions: assign({ endReason: 'disconnected' }) },
                    ],
                  },
                },
                away: {
                  description: 'The socket dropped: the dialogue goes on while a reconnect is awaited for resumeGrace.',
                  // The root reads this tag: a claim by the same candidate resumes, not replaces.
                  tags: ['awaitingClient'],
                  on: { 'client.resumed': { target: 'present', actions: 'replayToClient' } },
                  after: { resumeGrace: { target: '#t2live.finishing', actions: assign({ endReason: 'disconnected' }) } },
                },
              },
            },
          },
        },
      },
    },
    finishing: {
      description: 'Closes the dialogue and the recording; waits for the session facts.',
      entry: [{ type: 'monitorReply', params: ({ context }) => openReply(context) }, 'closeTranscript', { type: 'announceEnd', params: {} }, { type: 'announce', params: { value: 'finishing' } }],
      on: {
        'client.disconnected': { actions: assign({ endReason: ({ context }) => context.endReason ?? 'disconnected' }) },
        // The drain's grading time passed while the session was still closing: remember it, so
        // that the session goes straight to saving ungraded instead of waiting for the grader.
        'server.deadline': { actions: assign({ gradeTimeOver: true }) },
      },
      invoke: {
        id: 'finishSession',
        src: 'finishSession',
        input: ({ context }) => ({ sessionId: context.sessionId }),
        onDone: [
          { guard: and(['candidateSaidSomething', 'gradeTimeOver']), target: 'saving', actions: assign({ facts: ({ event }) => event.output }) },
          { guard: 'candidateSaidSomething', target: 'evaluating', actions: assign({ facts: ({ event }) => event.output }) },
          { target: 'error', actions: [assign({ facts: ({ event }) => event.output }), { type: 'setError', params: { code: CLOSE.NOTHING_TO_GRADE, name: 'NOTHING_TO_GRADE', message: 'Le candidat n’a rien dit : il n’y a rien à évaluer.' } }] },
        ],
        onError: [
          { guard: and(['candidateSaidSomething', 'gradeTimeOver']), target: 'saving' },
          { guard: 'candidateSaidSomething', target: 'evaluating' },
          { target: 'error', actions: { type: 'setError', params: { code: CLOSE.NOTHING_TO_GRADE, name: 'NOTHING_TO_GRADE', message: 'Le candidat n’a rien dit : il n’y a rien à évaluer.' } } },
        ],
      },
    },
    evaluating: {
      description: 'Waits for the grader’s report on the transcript, unless the shutdown deadline passes.',
      entry: [{ type: 'announce', params: { value: 'evaluating' } }],
      // Past the drain's grading time: save now, ungraded (the next start grades it).
      on: { 'client.disconnected': {}, 'server.deadline': { target: 'saving' } },
      invoke: {
        id: 'evaluate',
        src: 'evaluate',
        input: ({ context }) => ({
          candidateId: context.candidateId ?? '',
          sessionId: context.sessionId,
          sujetId: context.sujetId,
          consigne: context.subject?.consigne ?? '',
          transcript: context.transcript,
          facts: context.facts,
          endReason: context.endReason,
        }),
        onDone: { target: 'saving', actions: assign({ graded: ({ event }) => event.output }) },
        // The correction service never rejects for a model failure; anything else still saves.
        onError: { target: 'saving' },
      },
    },
    saving: {
      description: 'Stores the session, its transcript and its report.',
      on: { 'client.disconnected': {} },
      invoke: {
        id: 'save',
        src: 'save',
        input: ({ context }) => ({
          sessionId: context.sessionId,
          candidateId: context.candidateId ?? '',
          sujetId: context.sujetId,
          mode: context.mode,
          transcript: context.transcript,
          facts: context.facts,
          graded: context.graded,
          endReason: context.endReason,
        }),
        onDone: [
          {
            guard: ({ context }) => context.graded !== null,
            target: 'ended',
            actions: emit(({ context, event }) => ({
              type: 'client.report' as const,
              report: context.graded!.report,
              productionId: context.graded!.productionId,
              audioUrl: event.output.audioUrl,
            })),
          },
          { target: 'error', actions: { type: 'setError', params: { code: CLOSE.INTERNAL, name: 'GRADING_FAILED', message: 'La session est enregistrée mais le rapport n’a pas pu être produit.' } } },
        ],
        onError: { target: 'error', actions: { type: 'setError', params: { code: CLOSE.INTERNAL, name: 'SAVE_FAILED', message: 'La session n’a pas pu être enregistrée.' } } },
      },
    },
    ended: {
      type: 'final',
      description: 'Saved and graded: the report was sent and the socket closed normally.',
      entry: [{ type: 'announce', params: { value: 'ended' } }, emit({ type: 'client.close', code: CLOSE.NORMAL, reason: 'ended' })],
    },
    error: {
      type: 'final',
      description: 'Refused or failed: the candidate gets the error and the socket closes with its code.',
      entry: [
        // A failed save keeps its open row: the next start closes it `interrupted`, nothing lost.
        { type: 'persistDiscard', params: ({ context }) => ({ keep: context.error?.name === 'SAVE_FAILED' }) },
        { type: 'announce', params: { value: 'error' } },
        emit(({ context }) => ({ type: 'client.error' as const, code: context.error?.code ?? CLOSE.INTERNAL, name: context.error?.name ?? 'INTERNAL', message: context.error?.message ?? 'Erreur interne.' })),
        emit(({ context }) => ({ type: 'client.close' as const, code: context.error?.code ?? CLOSE.INTERNAL, reason: context.error?.name ?? 'INTERNAL' })),
      ],
    },
    handedOver: { type: 'final', description: 'This socket resumed an older session of the candidate: nothing of its own to keep or close.' },
    handedOff: {
      type: 'final',
      description: 'The instance stops while others run: the session is left to another instance, its page told to reconnect there.',
      entry: [
        'persistAway',
        emit({ type: 'client.error', code: CLOSE.RECONNECT, name: 'RECONNECT', message: 'Le serveur redémarre : votre séance continue sur un autre serveur, reconnexion…' }),
        emit({ type: 'client.close', code: CLOSE.RECONNECT, reason: 'RECONNECT' }),
      ],
    },
    cancelled: {
      type: 'final',
      description: 'Ended before the dialogue began, or replaced: nothing is saved.',
      entry: [{ type: 'persistDiscard', params: { keep: false } }, emit({ type: 'client.close', code: CLOSE.NORMAL, reason: 'cancelled' })],
    },
  },
});
