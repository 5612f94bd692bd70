import type { EventObject } from 'xstate';
import { CLOSE, type EndReason, type T2Emitted, type T2Input } from '../../machines/t2live.js';
import type { OracleContext } from '../harness/index.js';

/**
 * What the candidate's client and the boundary must observe in a T2 live session, per
 * docs/t2-live.md, computed from the path's events alone (a reference of the rules, not the chart):
 * who is called and when, that a session where the candidate said nothing is never graded, what
 * is relayed, and how the socket closes.
 */
export interface T2World {
  /** Every `client.*` event the chart emitted (what the WebSocket edge serializes), in order. */
  emitted: T2Emitted[];
  /** What the interlocutor received (`candidate.*`), in order. */
  toInterlocutor: EventObject[];
  /** Inputs the interlocutor (Gemini Live or offline) was opened with. */
  interlocutors: unknown[];
  /** What the rule monitor was handed (an interlocutor reply as it closes). */
  monitored: Array<{ text: string; candidateSpokeBefore: boolean }>;
  /**
   * The tags the root reads on a claim (core/rootMachine.ts): `awaitingClient` (a claim by the same
   * candidate resumes this session) and `resumable` (a `resume=1` claim may take it over).
   */
  tags?: () => { awaitingClient: boolean; resumable: boolean };
  /**
   * What the recording side was asked, in order: `open`/`close` (the direct audio pipe, open
   * exactly while the dialogue lasts), `candidate`/`interlocutor` (an audio chunk written to the
   * WAV), `usage` (the interlocutor's token counts).
   */
  recorded: string[];
  /** What the session asked the store to do as it went (`persistOpen`, `persistTurn`, `persistDiscard`). */
  persisted: string[];
  /**
   * Replayed through the WebSocket edge: the edge stamps a text turn's `atMs` with its own clock,
   * so turns are compared without it.
   */
  edge?: boolean;
}

interface Turn {
  speaker: 'candidate' | 'interlocutor';
  text: string;
  atMs: number;
  final: boolean;
}

type Phase = 'authorizing' | 'loading' | 'connecting' | 'live' | 'finishing' | 'evaluating' | 'saving' | 'ended' | 'error' | 'cancelled' | 'handedOver' | 'handedOff';

/** `client.resume` as the page gets it: the transcript without the turns' timestamps. */
interface Resume {
  state: 'listening' | 'interlocutor_speaking';
  transcript: Array<{ speaker: string; text: string; final: boolean }>;
  remainingMs: number;
}

/** What of the input the rules depend on. */
type T2Rules = Pick<T2Input, 'examMs' | 'warningMs' | 'graceMs' | 'restored'>;

/**
 * The wall-clock time the model's simulated clock starts from (the input's `now`). The dialogue
 * opens before any timer fires (the only earlier one, the connection's, ends the session), so at
 * that moment the clock reads exactly this.
 */
export const MODEL_T0 = Date.UTC(2026, 0, 5, 9);

interface Expected {
  phase: Phase;
  error: { code: number; name: string } | null;
  endReason: EndReason | null;
  spoke: boolean;
  warned: boolean;
  graded: { productionId: string } | null;
  /** The drain's grading time passed while the session was closing: it is saved without grading. */
  gradeTimeOver: boolean;
  relayed: Array<{ speaker: string; text: string }>;
  toInterlocutor: string[];
  audioOut: number;
  /** Calls to the boundary that must have started by now. */
  calls: { authorize: number; loadSubject: number; interlocutor: number; finishSession: number; evaluate: number; save: number };
  report: { productionId: string; audioUrl: string | null } | null;
  /** The transcript as it stands (fragments of one speaker joined into one open turn). */
  transcript: Turn[];
  /** Turns completed, as the client is told (`client.transcript` with `final: true`). */
  finals: Array<{ speaker: string; text: string }>;
  monitored: Array<{ text: string; candidateSpokeBefore: boolean }>;
  /** What the client is told about the dialogue, consecutive repeats folded. */
  announced: string[];
  interrupted: number;
  /** The socket dropped during the dialogue and the session waits for its candidate. */
  away: boolean;
  /** Each reconnect: what the page is sent to rebuild itself. */
  resumes: Resume[];
  /** Messages held before the dialogue and refused (NOT_READY error frames): the socket resumed an older session. */
  refused: number;
  /** The older session this one handed its socket to. */
  handover: string | null;
  /** Why the dialogue ended, as the page is told it (one `ended` frame, before any report). */
  ended: EndReason[];
  recorded: string[];
  /** Store writes in order: `open:<candidate>`, `turn:<speaker>:<text>`, `discard` or `discard:keep`. */
  persisted: string[];
}

type Payload = EventObject & { output?: unknown; text?: string; speaker?: string };

function expectedT2(events: readonly EventObject[], rules: T2Rules): Expected {
  const x: Expected = {
    phase: 'authorizing',
    error: null,
    endReason: null,
    spoke: false,
    warned: false,
    graded: null,
    gradeTimeOver: false,
    relayed: [],
    toInterlocutor: [],
    audioOut: 0,
    calls: { authorize: 1, loadSubject: 0, interlocutor: 0, finishSession: 0, evaluate: 0, save: 0 },
    report: null,
    transcript: [],
    finals: [],
    monitored: [],
    announced: [],
    interrupted: 0,
    away: false,
    resumes: [],
    handover: null,
    ended: [],
    refused: 0,
    persisted: [],
    recorded: [],
  };
  // A session taken over from another instance starts with that instance's transcript, and its
  // exam clock where the other left it: the exam's end is an absolute time, read at the dialogue's start.
  const restored = rules.restored;
  const spentElsewhere = restored?.examEndsAt != null ? Math.min(rules.examMs, Math.max(0, rules.examMs - (restored.examEndsAt - MODEL_T0))) : 0;
  if (restored) {
    x.transcript = restored.transcript.map((t) => ({ ...t }));
    x.spoke = restored.transcript.some((t) => t.speaker === 'candidate' && t.text.trim().length > 0);
  }
  // Simulated time since the dialogue began (on the exam's clock): only a timer firing moves the
  // clock, and of those only the warning leaves the session live (idle, the exam's end and the
  // grace period finish it).
  let sinceLive = spentElsewhere;
  let sub = '';
  // Messages sent before the dialogue opened: held, then the dialogue's first messages, in order.
  const held: Array<{ text: string; atMs: number }> = [];
  let dialogue: 'awaiting' | 'candidate' | 'interlocutor' = 'awaiting';
  // Read through a call: the type checker does not see the closures below change it.
  const now = () => dialogue;
  const announce = (value: string) => {
    if (x.announced[x.announced.length - 1] !== value) x.announced.push(value);
  };
  const setDialogue = (d: typeof dialogue) => {
    dialogue = d;
    announce(d === 'interlocutor' ? 'interlocutor_speaking' : 'listening');
  };
  const last = () => x.transcript[x.transcript.length - 1];
  const close = (t: Turn): Turn => ({ ...t, text: t.text.trim(), final: true });
  // The rule monitor sees the interlocutor's reply as it closes (empty when none is open).
  const monitor = () => {
    const l = last();
    const open = l && !l.final && l.speaker === 'interlocutor';
    x.monitored.push(open ? { text: l.text.trim(), candidateSpokeBefore: x.transcript.slice(0, -1).some((t) => t.speaker === 'candidate') } : { text: '', candidateSpokeBefore: true });
  };
  // A turn the client is told is complete is stored at once (a crash loses at most the turn in
  // progress, docs/operations.md); a blank one is not.
  const completed = (speaker: string, text: string) => {
    x.finals.push({ speaker, text });
    if (text.trim().length > 0) x.persisted.push(`turn:${speaker}:${text}`);
  };
  const closeReply = () => {
    const l = last();
    if (!l || l.final || l.speaker !== 'interlocutor') return;
    x.transcript = [...x.transcript.slice(0, -1), close(l)];
    completed('interlocutor', l.text.trim());
  };
  const fragment = (speaker: Turn['speaker'], text: string, atMs: number) => {
    const l = last();
    if (l && !l.final && l.speaker !== speaker) {
      completed(l.speaker, l.text.trim());
      x.transcript = [...x.transcript.slice(0, -1), close(l)];
    }
    const open = last();
    x.transcript = open && !open.final && open.speaker === speaker ? [...x.transcript.slice(0, -1), { ...open, text: open.text + text }] : [...x.transcript, { speaker, text, atMs, final: false }];
  };
  const fail = (code: number, name: string) => {
    x.phase = 'error';
    x.error = { code, name };
    announce('error');
    // The session's row is dropped, except after a failed save: the next start closes it `interrupted`.
    x.persisted.push(name === 'SAVE_FAILED' ? 'discard:keep' : 'discard');
  };
  // Text mode: one message is one complete candidate turn.
  const liveText = (text: string, atMs: number) => {
    x.spoke ||= text.trim().length > 0;
    x.toInterlocutor.push(`text:${text}`);
    x.transcript = [...x.transcript.map((turn) => (turn.final ? turn : close(turn))), { speaker: 'candidate', text, atMs, final: true }];
    completed('candidate', text);
    setDialogue('interlocutor');
  };
  const cancel = () => {
    x.phase = 'cancelled';
    x.persisted.push('discard');
  };
  const finish = (reason: EndReason) => {
    monitor();
    // Every turn is closed; empty ones are dropped.
    x.transcript = x.transcript.map((t) => (t.final ? t : close(t))).filter((t) => t.text.length > 0);
    announce('finishing');
    x.phase = 'finishing';
    x.endReason = reason;
    x.ended.push(reason);
    x.calls.finishSession++;
    x.away = false;
    x.recorded.push('close');
  };
  const afterFinish = () => {
    // A session where the candidate said nothing is never graded.
    if (!x.spoke) fail(CLOSE.NOTHING_TO_GRADE, 'NOTHING_TO_GRADE');
    // Past the drain's grading time already: saved ungraded, the grader never called.
    else if (x.gradeTimeOver) {
      x.phase = 'saving';
      x.calls.save++;
    } else {
      x.phase = 'evaluating';
      x.calls.evaluate++;
    }
  };
  for (const event of events) {
    const e = event as Payload;
    const t = event.type;
    const final = x.phase === 'ended' || x.phase === 'error' || x.phase === 'cancelled' || x.phase === 'handedOver' || x.phase === 'handedOff';
    if (final) continue;
    // Before the dialogue there is nothing to save: a vanished client, or the server stopping,
    // cancels (docs/operations.md: a session still connecting is cancelled).
    if ((t === 'client.disconnected' || t === 'server.shutdown') && ['authorizing', 'loading', 'connecting'].includes(x.phase)) {
      cancel();
      continue;
    }
    // One live session per candidate: a newer one of the same candidate ends this one. Before the
    // dialogue there is nothing to grade: cancelled.
    if (t === 'conversation.replaced' && ['loading', 'connecting'].includes(x.phase)) {
      // The page is told why, so the tab it leaves never just says « terminé ».
      x.ended.push('replaced');
      cancel();
      continue;
    }
    // A message before the dialogue opens is held for it; « Terminer » then cancels.
    if (['authorizing', 'loading', 'connecting'].includes(x.phase)) {
      if (t === 'client.text') {
        held.push({ text: e.text!, atMs: (e as Payload & { atMs: number }).atMs });
        continue;
      }
      if (t === 'client.end') {
        cancel();
        continue;
      }
    }
    switch (x.phase) {
      case 'authorizing':
        if (t === 'xstate.done.actor.authorize') {
          sub = (e.output as { sub: string }).sub;
          if ((e.output as { features: string[] }).features.includes('oral_t2_live')) {
            x.phase = 'loading';
            x.calls.loadSubject++;
          } else fail(CLOSE.PLAN_INSUFFICIENT, 'PLAN_INSUFFICIENT');
        } else if (t === 'xstate.error.actor.authorize') fail(CLOSE.AUTH_REQUIRED, 'AUTH_REQUIRED');
        break;
      case 'loading':
        if (t === 'xstate.done.actor.loadSubject') {
          if (e.output) {
            x.phase = 'connecting';
            x.calls.interlocutor++;
            announce('connecting');
            // The session's row is written when it starts.
            x.persisted.push(`open:${sub}`);
          } else fail(CLOSE.SUJET_NOT_FOUND, 'SUJET_NOT_FOUND');
        } else if (t === 'xstate.error.actor.loadSubject') fail(CLOSE.INTERNAL, 'INTERNAL');
        // The root answers the claim: an older session of this candidate awaits its socket; this
        // one hands the socket over and ends with nothing of its own (nothing stored, no close).
        else if (t === 'conversation.resume') {
          // What this socket sent before is refused, one error frame each: the older session never saw it.
          x.refused += held.splice(0).length;
          x.phase = 'handedOver';
          x.handover = (e as Payload & { systemId: string }).systemId;
        } else if (t === 'conversation.nothingToResume') fail(CLOSE.NOTHING_TO_RESUME, 'NOTHING_TO_RESUME');
        // The candidate's session is live in another tab: this one stops, so the page can ask.
        else if (t === 'conversation.activeElsewhere') fail(CLOSE.ACTIVE_ELSEWHERE, 'ACTIVE_ELSEWHERE');
        break;
      case 'connecting':
        if (t === 'interlocutor.ready') {
          x.phase = 'live';
          x.recorded.push('open');
          // Taken over: the page gets the transcript and the exam time left as the dialogue opens.
          if (restored) x.resumes.push({ state: 'listening', transcript: x.transcript.map((turn) => ({ speaker: turn.speaker, text: turn.text, final: turn.final })), remainingMs: Math.max(0, rules.examMs - sinceLive) });
          // Waiting for the candidate: the interlocutor never speaks first.
          announce('listening');
          for (const h of held.splice(0)) liveText(h.text, h.atMs);
        }
        else if (t === 'interlocutor.failed') fail(CLOSE.INTERNAL, 'INTERLOCUTOR_UNAVAILABLE');
        else if (t.startsWith('xstate.after.connectTimeout')) fail(CLOSE.INTERNAL, 'INTERLOCUTOR_TIMEOUT');
        break;
      case 'live':
        if (t === 'client.text') liveText(e.text!, (e as Payload & { atMs: number }).atMs);
        else if (t === 'client.audio') {
          x.toInterlocutor.push('audio');
          x.recorded.push('candidate');
        } else if (t === 'interlocutor.audio') {
          x.audioOut++;
          x.recorded.push('interlocutor');
        } else if (t === 'interlocutor.usage') x.recorded.push('usage');
        else if (t === 'interlocutor.transcript') {
          const speaker = e.speaker as Turn['speaker'];
          if (speaker === 'candidate') x.spoke ||= e.text!.trim().length > 0;
          x.relayed.push({ speaker, text: e.text! });
          fragment(speaker, e.text!, (e as Payload & { atMs: number }).atMs);
          // The interlocutor never speaks first; if it does, it is relayed all the same.
          if (now() === 'awaiting' || now() === 'candidate') setDialogue(speaker === 'candidate' ? 'candidate' : 'interlocutor');
        } else if (t === 'interlocutor.turnComplete' && now() !== 'awaiting') {
          monitor();
          closeReply();
          if (now() === 'interlocutor') setDialogue('candidate');
        } else if (t === 'interlocutor.interrupted' && now() === 'interlocutor') {
          // Barge-in: the reply is cut short, the page drops the audio it still has queued.
          monitor();
          closeReply();
          x.interrupted++;
          setDialogue('candidate');
        } else if (t === 'client.end') finish('candidate');
        else if (t === 'client.disconnected') {
          // With a grace period the session waits for its candidate, everything else going on;
          // without one (0) it finishes at once. Already waiting: nothing more to do.
          if ((rules.graceMs ?? 0) > 0) x.away = true;
          else finish('disconnected');
        } else if (t === 'client.resumed') {
          // The candidate is back (or took over a socket the server still thought open): the page
          // gets the whole transcript so far, the last turn possibly open, and the exam time left.
          x.away = false;
          x.resumes.push({
            state: now() === 'interlocutor' ? 'interlocutor_speaking' : 'listening',
            transcript: x.transcript.map((turn) => ({ speaker: turn.speaker, text: turn.text, final: turn.final })),
            remainingMs: Math.max(0, rules.examMs - sinceLive),
          });
        // Nobody came back within the grace period (a socket that is present has no such timer).
        } else if (t.startsWith('xstate.after.resumeGrace') && x.away) finish('disconnected');
        else if (t === 'interlocutor.failed') finish('interlocutor_lost');
        else if (t === 'conversation.replaced') finish('replaced');
        // The drain: as if the candidate had pressed « Terminer ».
        else if (t === 'server.shutdown') finish('server_shutdown');
        // The drain with other instances running: nothing graded or saved here; the row is marked
        // as awaiting a taker (after the turns), the page told to reconnect (4503).
        else if (t === 'server.handover') {
          x.phase = 'handedOff';
          x.away = false;
          x.recorded.push('close');
          x.persisted.push('away');
        }
        else if (t.startsWith('xstate.after.idleTimeout')) finish('idle');
        else if (t.startsWith('xstate.after.untilWarning')) {
          x.warned = true;
          sinceLive = rules.examMs - rules.warningMs;
        } else if (t.startsWith('xstate.after.warningToEnd')) finish('time');
        break;
      case 'finishing':
        if (t === 'xstate.done.actor.finishSession' || t === 'xstate.error.actor.finishSession') {
          afterFinish();
          if ((x.phase as Phase) === 'evaluating') announce('evaluating');
        } else if (t === 'server.deadline') x.gradeTimeOver = true;
        break;
      case 'evaluating':
        if (t === 'xstate.done.actor.evaluate' || t === 'xstate.error.actor.evaluate') {
          x.graded = t.includes('.done.') ? (e.output as { productionId: string }) : null;
          x.phase = 'saving';
          x.calls.save++;
        } else if (t === 'server.deadline') {
          // Past the drain's grading time: saved ungraded now (graded at the next start).
          x.graded = null;
          x.phase = 'saving';
          x.calls.save++;
        }
        break;
      case 'saving':
        if (t === 'xstate.done.actor.save') {
          if (x.graded) {
            x.phase = 'ended';
            announce('ended');
            x.report = { productionId: x.graded.productionId, audioUrl: (e.output as { audioUrl: string | null }).audioUrl };
          } else fail(CLOSE.INTERNAL, 'GRADING_FAILED');
        } else if (t === 'xstate.error.actor.save') fail(CLOSE.INTERNAL, 'SAVE_FAILED');
        break;
    }
  }
  return x;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function expectT2({ events, controls, world, end, check, input }: OracleContext): void {
  const i = input as T2Input;
  const x = expectedT2(events, i);
  const w = world as T2World;
  for (const [src, n] of Object.entries(x.calls)) {
    const got = src === 'interlocutor' ? w.interlocutors.length : controls.all(src).length;
    check(got === n, `${src} called ${n} time(s), got ${got}`);
  }
  if (x.calls.evaluate > 0) check(x.spoke, 'never graded without candidate speech');
  for (const opened of w.interlocutors) check(same(opened, { sessionId: i.sessionId, sujetId: i.sujetId, mode: i.mode }), 'the interlocutor is opened for this session and subject');
  for (const inv of [...controls.all('evaluate'), ...controls.all('save')]) {
    const given = inv.input as { endReason: EndReason | null; transcript: Turn[]; graded?: unknown };
    check(given.endReason === x.endReason, `${inv.id} gets the end reason ${x.endReason}, got ${given.endReason}`);
    const turns = (ts: readonly Turn[]) => (w.edge ? ts.map((t) => ({ ...t, atMs: 0 })) : ts);
    check(same(turns(given.transcript), turns(x.transcript)), `${inv.id} gets the closed transcript ${JSON.stringify(x.transcript)}, got ${JSON.stringify(given.transcript)}`);
  }
  // The grade and the stored session belong to the authorized candidate, on the subject loaded.
  const sub = (events.find((e) => e.type === 'xstate.done.actor.authorize') as Payload | undefined)?.output as { sub: string } | undefined;
  const subject = (events.find((e) => e.type === 'xstate.done.actor.loadSubject') as Payload | undefined)?.output as { consigne: string } | undefined;
  for (const inv of [...controls.all('evaluate'), ...controls.all('save')]) check((inv.input as { candidateId: string }).candidateId === sub?.sub, `${inv.id} is for candidate ${sub?.sub}`);
  for (const inv of controls.all('evaluate')) check((inv.input as { consigne: string }).consigne === subject?.consigne, 'the grading knows the subject’s instructions');
  // The recording's facts (audio, rule counts) go with the grade and the stored session.
  const finished = events.find((e) => e.type === 'xstate.done.actor.finishSession') as Payload | undefined;
  for (const inv of [...controls.all('evaluate'), ...controls.all('save')]) check(same((inv.input as { facts: unknown }).facts, finished?.output ?? null), `${inv.id} gets the session's facts`);
  for (const inv of controls.all('save')) check(same((inv.input as { graded: unknown }).graded, x.graded), 'the saved session carries the grade, or null when grading failed');
  // Relayed to the client: each transcription fragment as it comes, the interlocutor's audio.
  const fragments = w.emitted.filter((e): e is Extract<T2Emitted, { type: 'client.transcript' }> => e.type === 'client.transcript' && !e.final).map((e) => ({ speaker: e.speaker, text: e.text }));
  check(same(fragments, x.relayed), `transcript fragments relayed ${JSON.stringify(x.relayed)}, got ${JSON.stringify(fragments)}`);
  check(w.emitted.filter((e) => e.type === 'client.audio').length === x.audioOut, 'every interlocutor audio chunk is relayed while live');
  const sent = w.toInterlocutor.map((e) => (e.type === 'candidate.text' ? `text:${(e as Payload).text}` : 'audio'));
  check(same(sent, x.toInterlocutor), `the interlocutor gets ${JSON.stringify(x.toInterlocutor)}, got ${JSON.stringify(sent)}`);
  const warnings = w.emitted.filter((e) => e.type === 'client.warning');
  check(warnings.length === (x.warned ? 1 : 0) && warnings.every((e) => e.remainingMs === i.warningMs), 'one warning, 30 s before the end');
  const announced = w.emitted.flatMap((e) => (e.type === 'client.state' ? [e.value] : [])).filter((v, k, all) => k === 0 || all[k - 1] !== v);
  check(same(announced, x.announced), `states announced ${x.announced.join(',')}, got ${announced.join(',')}`);
  const finals = w.emitted.filter((e): e is Extract<T2Emitted, { type: 'client.transcript' }> => e.type === 'client.transcript' && e.final).map((e) => ({ speaker: e.speaker, text: e.text }));
  check(same(finals, x.finals), `completed turns sent ${JSON.stringify(x.finals)}, got ${JSON.stringify(finals)}`);
  check(same(w.monitored, x.monitored), `the rule monitor gets ${JSON.stringify(x.monitored)}, got ${JSON.stringify(w.monitored)}`);
  check(w.emitted.filter((e) => e.type === 'client.interrupted').length === x.interrupted, 'a barge-in tells the page to drop its queued audio');
  const reports = w.emitted.filter((e) => e.type === 'client.report');
  check(reports.length === (x.report ? 1 : 0), `${x.report ? 'one report' : 'no report'} sent, got ${reports.length}`);
  for (const r of reports) check(r.type === 'client.report' && r.productionId === x.report?.productionId && r.audioUrl === x.report.audioUrl, 'the report names the production and its audio');
  const closes = w.emitted.filter((e): e is Extract<T2Emitted, { type: 'client.close' }> => e.type === 'client.close');
  const allErrors = w.emitted.filter((e): e is Extract<T2Emitted, { type: 'client.error' }> => e.type === 'client.error');
  const notReady = allErrors.filter((e) => e.name === 'NOT_READY');
  check(notReady.length === x.refused && notReady.every((e) => e.code === CLOSE.NOT_READY), `${x.refused} held message(s) refused with NOT_READY, got ${notReady.length}`);
  const errors = allErrors.filter((e) => e.name !== 'NOT_READY');
  const resumes = w.emitted.flatMap((e) => (e.type === 'client.resume' ? [{ state: e.state, transcript: e.transcript.map((t) => ({ speaker: t.speaker, text: t.text, final: t.final })), remainingMs: e.remainingMs }] : []));
  check(same(resumes, x.resumes), `on reconnect the page gets ${JSON.stringify(x.resumes)}, got ${JSON.stringify(resumes)}`);
  const ended = w.emitted.flatMap((e) => (e.type === 'client.ended' ? [e.reason] : []));
  check(same(ended, x.ended), `the page is told the dialogue ended ${JSON.stringify(x.ended)}, got ${JSON.stringify(ended)}`);
  const endedAt = w.emitted.findIndex((e) => e.type === 'client.ended');
  const reportAt = w.emitted.findIndex((e) => e.type === 'client.report');
  if (reportAt >= 0) check(endedAt >= 0 && endedAt < reportAt, 'why the dialogue ended is sent before the report');
  const handovers = w.emitted.flatMap((e) => (e.type === 'client.handover' ? [e.systemId] : []));
  check(same(handovers, x.handover ? [x.handover] : []), `the socket is handed over to ${x.handover ?? 'nobody'}, got ${JSON.stringify(handovers)}`);
  if (w.tags) {
    const tags = w.tags();
    check(tags.awaitingClient === x.away, `the root sees the session ${x.away ? '' : 'not '}waiting for its candidate`);
    check(tags.resumable === (x.phase === 'live'), `the root sees the session ${x.phase === 'live' ? '' : 'not '}resumable`);
  }
  check(same(w.recorded, x.recorded), `the recording is asked ${JSON.stringify(x.recorded)}, got ${JSON.stringify(w.recorded)}`);
  check(same(w.persisted, x.persisted), `the store is asked ${JSON.stringify(x.persisted)}, got ${JSON.stringify(w.persisted)}`);
  const final = x.phase === 'ended' || x.phase === 'error' || x.phase === 'cancelled' || x.phase === 'handedOff';
  // A session handed over closes nothing itself: the socket lives on with the older session. At the
  // edge no older session is running (the path's `t2:older` is made up): the edge closes 1011.
  const handedOverAtEdge = x.phase === 'handedOver' && w.edge === true;
  check(closes.length === (final || handedOverAtEdge ? 1 : 0), `the socket is closed ${final ? 'once' : 'not yet'}, got ${closes.length}`);
  if (handedOverAtEdge) check(closes[0]?.code === CLOSE.INTERNAL && closes[0].reason === 'INTERNAL', 'a handover to a session that is not running closes 1011');
  if (x.phase === 'error') {
    check(errors.length === 1 && errors[0]!.code === x.error!.code && errors[0]!.name === x.error!.name, `error ${x.error!.name} (${x.error!.code}), got ${JSON.stringify(errors)}`);
    // The message tells the candidate what happened, never the generic fallback.
    check(errors[0]!.message.length > 0 && errors[0]!.message !== 'Erreur interne.', `a specific message for ${x.error!.name}, got ${errors[0]!.message}`);
    check(closes[0]?.code === x.error!.code, `closed with ${x.error!.code}`);
  } else if (x.phase === 'handedOff') {
    check(errors.length === 1 && errors[0]!.code === CLOSE.RECONNECT && errors[0]!.name === 'RECONNECT', `handed over: RECONNECT (4503), got ${JSON.stringify(errors)}`);
    check(closes[0]?.code === CLOSE.RECONNECT, 'handed over: closed 4503, the page reconnects');
  } else check(errors.length === 0, 'no error sent');
  if (x.phase === 'ended' || x.phase === 'cancelled') check(closes[0]?.code === CLOSE.NORMAL && closes[0].reason === x.phase, `closed normally (${x.phase})`);
  if (end) check(!(final || x.phase === 'handedOver') || !controls.invocations.some((inv) => !inv.settled && !inv.signal.aborted), 'nothing is left running once the session is over');
}
