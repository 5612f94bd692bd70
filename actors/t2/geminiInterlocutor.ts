import { EndSensitivity, Modality, type GoogleGenAI, type LiveConnectConfig, type LiveServerMessage, type Session } from '@google/genai';
import { fromCallback } from 'xstate';
import type { Logger } from '../../core/log.js';
import type { InterlocutorAudioPort } from './audioPipe.js';
import type { InterlocutorEvent, InterlocutorInput, ToInterlocutor } from '../../machines/t2live.js';

/**
 * The Gemini Live interlocutor (spec §6 steps 6–12) as a callback actor: it opens the Live
 * session with the setup of step 7, forwards the candidate's 16 kHz PCM as realtimeInput, and
 * sends back the model's 24 kHz audio (every inlineData part of every message), both
 * transcriptions, turn boundaries, interruptions and usage.
 *
 * A Live connection lives about 10 minutes: on `goAway` (or an unexpected close once a resumption
 * handle is known) it opens a new connection with the last `sessionResumptionUpdate` handle and
 * swaps to it, so one T2 session outlives one connection. Audio arriving meanwhile still goes to
 * the old connection, which stays valid until it closes; audio during a gap is queued (bounded).
 */

export const INPUT_MIME = 'audio/pcm;rate=16000';
/** Audio held while no connection is usable: 10 s of 16 kHz PCM16. */
const MAX_QUEUED_BYTES = 10 * 16000 * 2;
/**
 * Resumed connections closed before Gemini said anything on them, in a row, before giving up: a
 * handle Gemini refuses (expired, unknown) must end in `interlocutor.failed`, not in a loop.
 */
export const MAX_SILENT_RESUMES = 3;

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
}

/** The setup of spec §6 step 7 (plus transcriptions and resumption, issue 6 §4). */
export function liveConfig(systemPrompt: string, handle?: string): LiveConnectConfig {
  return {
    responseModalities: [Modality.AUDIO],
    systemInstruction: systemPrompt,
    realtimeInputConfig: {
      automaticActivityDetection: {
        endOfSpeechSensitivity: EndSensitivity.END_SENSITIVITY_LOW,
        silenceDurationMs: 2000,
      },
    },
    inputAudioTranscription: {},
    outputAudioTranscription: {},
    sessionResumption: handle ? { handle } : {},
  };
}

export function geminiInterlocutor(deps: GeminiInterlocutorDeps) {
  const now = deps.now ?? Date.now;
  return fromCallback<ToInterlocutor, InterlocutorInput>(({ sendBack, receive, input }) => {
    const send = (e: InterlocutorEvent): void => sendBack(e);
    const log = deps.logger.child({ session: input.sessionId });
    const prompt = deps.systemPrompt(input.sujetId);
    const t0 = now();
    let current: Session | undefined;
    let handle: string | undefined;
    let stopped = false;
    let ready = false;
    let swapping = false;
    let queue: string[] = [];
    let queuedBytes = 0;
    let silentResumes = 0;

    const onMessage = (msg: LiveServerMessage): void => {
      // Gemini answered on this connection (setupComplete included): the handle was accepted.
      silentResumes = 0;
      const sc = msg.serverContent;
      if (sc) {
        // Every part of the message (there can be several), as one chunk: one event and one
        // WebSocket frame to the page instead of one per part.
        const pcm: Buffer[] = [];
        for (const part of sc.modelTurn?.parts ?? []) {
          const data = part.inlineData?.data;
          if (data) pcm.push(Buffer.from(data, 'base64'));
        }
        if (pcm.length) {
          const chunk = pcm.length === 1 ? pcm[0]! : Buffer.concat(pcm);
          if (deps.audio) deps.audio.interlocutor(chunk);
          else send({ type: 'interlocutor.audio', pcm: chunk });
        }
        if (sc.inputTranscription?.text) send({ type: 'interlocutor.transcript', speaker: 'candidate', text: sc.inputTranscription.text, atMs: now() - t0 });
        if (sc.outputTranscription?.text) send({ type: 'interlocutor.transcript', speaker: 'interlocutor', text: sc.outputTranscription.text, atMs: now() - t0 });
        if (sc.interrupted) send({ type: 'interlocutor.interrupted' });
        if (sc.turnComplete) send({ type: 'interlocutor.turnComplete' });
      }
      if (msg.sessionResumptionUpdate?.resumable && msg.sessionResumptionUpdate.newHandle) {
        handle = msg.sessionResumptionUpdate.newHandle;
      }
      if (msg.usageMetadata) {
        const u = msg.usageMetadata;
        send({ type: 'interlocutor.usage', usage: { promptTokens: u.promptTokenCount ?? 0, responseTokens: u.responseTokenCount ?? 0, totalTokens: u.totalTokenCount ?? 0 } });
      }
      if (msg.goAway) {
        log.info({ timeLeft: msg.goAway.timeLeft }, 'gemini live goAway: resuming on a new connection');
        void resume();
      }
    };

    const connect = async (resumeHandle?: string): Promise<Session> => {
      // The callbacks can fire before connect() resolves: they compare against this holder.
      const mine: { session?: Session } = {};
      mine.session = await deps.ai.live.connect({
        model: deps.model,
        config: liveConfig(prompt, resumeHandle),
        callbacks: {
          onmessage: (m) => {
            if (!stopped && mine.session === current) onMessage(m);
          },
          onerror: (e) => log.warn({ err: e.message }, 'gemini live socket error'),
          onclose: (e) => {
            if (stopped || mine.session !== current) return;
            log.warn({ code: e.code, reason: e.reason }, 'gemini live connection closed');
            if (handle && silentResumes < MAX_SILENT_RESUMES) {
              silentResumes++;
              void resume();
            } else send({ type: 'interlocutor.failed', message: `connexion Gemini fermée (${e.code})` });
          },
        },
      });
      return mine.session;
    };

    const flush = (): void => {
      if (!current) return;
      for (const data of queue) current.sendRealtimeInput({ audio: { data, mimeType: INPUT_MIME } });
      queue = [];
      queuedBytes = 0;
    };

    async function resume(): Promise<void> {
      if (swapping || stopped) return;
      swapping = true;
      const old = current;
      try {
        const next = await connect(handle);
        if (stopped) {
          next.close();
          return;
        }
        current = next;
        flush();
        send({ type: 'interlocutor.resumed', handle: handle ?? '' });
        try {
          old?.close();
        } catch {
          // already closed
        }
      } catch (err) {
        if (!stopped) send({ type: 'interlocutor.failed', message: `reprise de session impossible: ${(err as Error).message}` });
      } finally {
        swapping = false;
      }
    }

    connect()
      .then((s) => {
        if (stopped) {
          s.close();
          return;
        }
        current = s;
        ready = true;
        flush();
        send({ type: 'interlocutor.ready' });
      })
      .catch((err: unknown) => {
        if (!stopped) send({ type: 'interlocutor.failed', message: (err as Error).message });
      });

    const sendAudio = (pcm: Uint8Array, base64?: string): void => {
      if (stopped) return;
      // The Live API takes base64 inside JSON: encoded once here, or passed through as the
      // client sent it (JSON audio frames), never decoded and re-encoded.
      const data = base64 ?? Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');
      if (current && ready) current.sendRealtimeInput({ audio: { data, mimeType: INPUT_MIME } });
      else if (queuedBytes < MAX_QUEUED_BYTES) {
        queue.push(data);
        queuedBytes += pcm.byteLength;
      }
    };
    const detachAudio = deps.audio?.attachInterlocutor(sendAudio);

    receive((event) => {
      if (stopped) return;
      switch (event.type) {
        case 'candidate.audio':
          sendAudio(event.pcm);
          break;
        case 'candidate.text':
          current?.sendClientContent({ turns: event.text, turnComplete: true });
          break;
        case 'candidate.end':
          current?.sendRealtimeInput({ audioStreamEnd: true });
          break;
      }
    });

    return () => {
      stopped = true;
      detachAudio?.();
      try {
        current?.close();
      } catch {
        // the socket may already be gone
      }
    };
  });
}
