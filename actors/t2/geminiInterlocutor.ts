import type { GoogleGenAI, LiveServerMessage } from '@google/genai';
import { fromCallback } from 'xstate';
import type { Logger } from '../../core/log.js';
import type { InterlocutorAudioPort } from './audioPipe.js';
import { GeminiLiveLink } from './geminiLiveLink.js';
import { SessionEvents } from '../../core/tuning/chartEventsAfterAudio.js';
import type { InterlocutorEvent, InterlocutorInput, RestoredSession, ToInterlocutor } from '../../machines/t2live.js';

/**
 * The Gemini Live interlocutor (docs/t2-live.md) as a callback actor: it opens the Live session
 * with the setup of docs/t2-live.md#configuration, forwards the candidate's 16 kHz PCM as
 * realtimeInput, and sends back the model's 24 kHz audio (every inlineData part of every message), both
 * transcriptions, turn boundaries, interruptions and usage. The connection, its resumption
 * across Gemini's ~10-minute limit and the audio queue during a gap are actors/t2/geminiLiveLink.ts.
 */


export interface GeminiInterlocutorDeps {
  ai: GoogleGenAI;
  model: string;
  /** The §3 prompt for this subject. */
  systemPrompt: (sujetId: string) => string;
  logger: Logger;
  now?: () => number;
  /**
   * The session's audio pipe (actors/t2/audioPipe.ts): candidate chunks arrive through it and
   * model audio leaves through it, with no XState event per chunk. Without it, audio travels as
   * `candidate.audio` / `interlocutor.audio` events.
   */
  audio?: InterlocutorAudioPort;
  /** Stores each new resumption handle of the session (another instance may take it over). */
  saveHandle?: (sessionId: string, handle: string) => void;
  /** A session taken over: resume from its stored handle, or prime a new Live session with its transcript. */
  restore?: Pick<RestoredSession, 'handle' | 'transcript'>;
}

export function geminiInterlocutor(deps: GeminiInterlocutorDeps) {
  const now = deps.now ?? Date.now;
  return fromCallback<ToInterlocutor, InterlocutorInput>(({ sendBack, receive, input }) => {
    // Chart events leave after the audio of the loop iteration, in this session's order
    // (core/tuning/chartEventsAfterAudio.ts). The model's audio delivers them first, unless all that is
    // pending is transcript fragments and usage: bookkeeping the page and the chart do not need
    // before the audio (a turn's end, an interruption, the link's events are delivered first).
    const events = new SessionEvents<InterlocutorEvent>(sendBack, mayFollowAudio, mergeFragments);
    const send = (e: InterlocutorEvent): void => events.push(e);
    const t0 = now();
    const link = new GeminiLiveLink({
      ai: deps.ai,
      model: deps.model,
      systemPrompt: deps.systemPrompt(input.sujetId),
      log: deps.logger.child({ session: input.sessionId }),
      send,
      onMessage: (msg) => forwardServerMessage(msg, { send, beforeAudio: () => events.beforeAudio(), audio: deps.audio, atMs: () => now() - t0 }),
      ...(deps.saveHandle ? { onHandle: (handle: string) => deps.saveHandle?.(input.sessionId, handle) } : {}),
      ...(deps.restore ? { resumeFrom: { handle: deps.restore.handle, transcript: deps.restore.transcript } } : {}),
    });
    link.open();
    const detachAudio = deps.audio?.attachInterlocutor((pcm, base64) => link.sendAudio(pcm, base64));

    receive((event) => {
      if (link.isStopped) return;
      switch (event.type) {
        case 'candidate.audio':
          link.sendAudio(event.pcm);
          break;
        case 'candidate.text':
          link.sendText(event.text);
          break;
        case 'candidate.end':
          link.endAudio();
          break;
      }
    });

    return () => {
      events.close();
      detachAudio?.();
      link.stop();
    };
  });
}

/** Chart events the model's next audio may overtake: they neither gate the audio nor tell the page what to do with it. */
function mayFollowAudio(e: InterlocutorEvent): boolean {
  return e.type === 'interlocutor.transcript' || e.type === 'interlocutor.usage';
}

/**
 * Two transcript fragments of the same speaker, both still pending, as one: Gemini sends its
 * transcriptions a few words at a time, and the chart joins a speaker's fragments into the open
 * turn anyway (machines/t2live.ts, `transcriptIn`), so one event for both gives the same turn,
 * the same text on the page, for one chart macrostep and one page frame. The first fragment's
 * time is kept: it is the turn's, when the fragment opens one.
 */
function mergeFragments(last: InterlocutorEvent, next: InterlocutorEvent): InterlocutorEvent | undefined {
  if (last.type !== 'interlocutor.transcript' || next.type !== 'interlocutor.transcript' || last.speaker !== next.speaker) return undefined;
  return { ...last, text: last.text + next.text };
}

/** What one Live message says, as chart events: model audio, both transcriptions, turn boundaries, usage. */
function forwardServerMessage(msg: LiveServerMessage, o: { send: (e: InterlocutorEvent) => void; beforeAudio: () => void; audio: InterlocutorAudioPort | undefined; atMs: () => number }): void {
  const { send } = o;
  const sc = msg.serverContent;
  if (sc) {
    // Every part of the message (there can be several), as one chunk: one event and one
    // WebSocket frame to the page instead of one per part.
    const chunk = sc.modelTurn?.parts ? decodeParts(sc.modelTurn.parts) : undefined;
    if (chunk) {
      if (o.audio) {
        o.beforeAudio();
        o.audio.interlocutor(chunk);
      } else send({ type: 'interlocutor.audio', pcm: chunk });
    }
    if (sc.inputTranscription?.text) send({ type: 'interlocutor.transcript', speaker: 'candidate', text: sc.inputTranscription.text, atMs: o.atMs() });
    if (sc.outputTranscription?.text) send({ type: 'interlocutor.transcript', speaker: 'interlocutor', text: sc.outputTranscription.text, atMs: o.atMs() });
    if (sc.interrupted) send({ type: 'interlocutor.interrupted' });
    if (sc.turnComplete) send({ type: 'interlocutor.turnComplete' });
  }
  if (msg.usageMetadata) {
    const u = msg.usageMetadata;
    send({ type: 'interlocutor.usage', usage: { promptTokens: u.promptTokenCount ?? 0, responseTokens: u.responseTokenCount ?? 0, totalTokens: u.totalTokenCount ?? 0 } });
  }
}

/**
 * The audio of every inlineData part, decoded into one buffer: the same bytes as decoding each
 * part and concatenating them, without a buffer per part and the copy of the concatenation.
 */
function decodeParts(parts: ReadonlyArray<{ inlineData?: { data?: string } }>): Buffer | undefined {
  let bytes = 0;
  let count = 0;
  let only = '';
  for (const part of parts) {
    const data = part.inlineData?.data;
    if (!data) continue;
    bytes += Buffer.byteLength(data, 'base64');
    count++;
    only = data;
  }
  if (count <= 1) return count === 1 ? Buffer.from(only, 'base64') : undefined;
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const part of parts) {
    const data = part.inlineData?.data;
    if (data) at += out.write(data, at, 'base64');
  }
  // Malformed base64 decodes to fewer bytes than its length announces (as Buffer.from would).
  return at === bytes ? out : out.subarray(0, at);
}
